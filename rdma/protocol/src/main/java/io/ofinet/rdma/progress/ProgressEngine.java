package io.ofinet.rdma.progress;

import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionError;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives one protocol endpoint: reads its completion queues (one per rail) in batches of at most
 * the layout's CQ read count, dispatches each completion by its context to the {@link Operation}
 * it belongs to, and hands the completions of remote writes with immediate data (context 0, or
 * the flag FI_REMOTE_WRITE) to the {@link RemoteHandler}. Every loop has a bound. ofinet calls {@link #progress} from every entry
 * point, whatever progress the provider claims.
 *
 * <p>Posts go to their destinations through the engine's {@link Destinations}, which keeps the
 * posts the provider refused (-FI_EAGAIN) and condemns a destination the provider says is gone;
 * which rails a step reads is up to its {@link QuietRails}.
 *
 * <p>Not thread-safe: the engine belongs to its endpoint and is used only by the thread that holds
 * the endpoint (see {@code RdmaEndpoint}).
 */
public final class ProgressEngine {

    /** Completions of remote writes with immediate data (context 0). */
    @FunctionalInterface
    public interface RemoteHandler {
        void remoteData(int rail, long flags, long len, long data) throws RdmaException;
    }

    private static final System.Logger LOG = System.getLogger(ProgressEngine.class.getName());

    /** {@link #source()} when the rail's provider does not name sources right for the kind. */
    public static final long SOURCE_UNTOLD = -2L;

    private final CompletionQueue[] queues;
    private final int readCount;
    private final RemoteHandler remote;
    private final CompletionBatch batch;
    private final CompletionError error = new CompletionError();
    private final List<Operation> operations = new ArrayList<>();
    private final QuietRails quiet = new QuietRails();
    private final Destinations destinations;
    private long remoteWriteErrors;
    /** Per rail: whether its provider names the source of received messages, and of remote writes. */
    private final boolean[] sourcesOfMessages;
    private final boolean[] sourcesOfWrites;
    /** The source of the completion being dispatched, where its rail's provider names it right. */
    private long source = SOURCE_UNTOLD;

    /**
     * @param queues the completion queue of each rail, indexed as the rails are
     * @param readCount completions read per queue per step (the layout's cqReadCount)
     * @param refusalTimeoutNanos how long a destination may refuse every post before it is condemned
     */
    public ProgressEngine(List<CompletionQueue> queues, int readCount, long refusalTimeoutNanos,
            RemoteHandler remote) {
        this.queues = queues.toArray(new CompletionQueue[0]);
        this.readCount = readCount;
        this.destinations = new Destinations(quiet, refusalTimeoutNanos);
        this.remote = remote;
        this.batch = new CompletionBatch(readCount);
        this.sourcesOfMessages = new boolean[this.queues.length];
        this.sourcesOfWrites = new boolean[this.queues.length];
    }

    /**
     * Says whether rail {@code rail}'s provider reports the source of received messages and of
     * remote writes right ({@link #source()}); by default it reports neither.
     */
    public void trustSources(int rail, boolean messages, boolean writes) {
        sourcesOfMessages[rail] = messages;
        sourcesOfWrites[rail] = writes;
    }

    /**
     * While a completion is dispatched ({@link RemoteHandler} or an operation's completion): who
     * sent what arrived, as a handle of the address vector of the rail it arrived on, where that
     * rail's provider reports it right for its kind ({@link Fi#ADDR_NOTAVAIL}: from an address not in
     * that vector); else {@link #SOURCE_UNTOLD}.
     */
    public long source() {
        return source;
    }

    /** Gives an operation its id; done once, when the operation is made. */
    public void register(Operation op) {
        op.assign(operations.size());
        operations.add(op);
    }

    /** Posts the provider refused for now (-FI_EAGAIN), each retried later. */
    public long refusedPosts() {
        return destinations.refusedPosts();
    }

    /** Destinations condemned so far. */
    public long condemnedPeers() {
        return destinations.condemnedPeers();
    }

    /** Failed writes into this engine's endpoints that belonged to no operation. */
    public long remoteWriteErrors() {
        return remoteWriteErrors;
    }

    /** Operations waiting to be posted again, over every destination. */
    public int pending() {
        return destinations.pending();
    }

    /**
     * Posts an operation to {@code peer}, or queues it behind that destination's earlier refused
     * ones: a new post never overtakes a pending one to the same destination. A failure to post
     * fails the operation; so does a condemned destination.
     */
    public void submit(Operation op, PeerQueue peer) {
        destinations.submit(op, peer);
    }

    /**
     * A completion (or error completion) of an operation arrived: at its last, it is no longer in
     * flight. Returns where it was posted, or null.
     */
    private PeerQueue landed(Operation op) {
        PeerQueue peer = op.inFlightTo;
        if (peer != null && op.completionsAwaited() <= 1) {
            peer.inFlight--;
            op.inFlightTo = null;
            quiet.landed(peer);
        }
        return peer;
    }

    /**
     * One bounded step: retries each refusing destination whose back-off has passed, in order until
     * one of its posts is refused again, then reads each queue once.
     *
     * @return completions handled
     */
    public int progress() throws RdmaException {
        destinations.retry();
        int handled = 0;
        int rails = quiet.toRead(queues.length);
        for (int rail = 0; rail < rails; rail++) {
            handled += read(rail);
        }
        return handled;
    }

    /**
     * Makes rails {@code first} and later quiet: a step reads their queues only every {@code every}
     * steps (a power of two), unless operations of ours to peers are in flight there or {@link
     * #expectOnQuietRails} says something is awaited there. On {@code tcp;ofi_rxm} each queue read
     * is a {@code poll()} of the endpoint's sockets.
     */
    public void quietRailsFrom(int first, int every) {
        quiet.from(first, every);
    }

    /** Whether the next steps await something on the quiet rails (read them every step). */
    public void expectOnQuietRails(boolean expect) {
        quiet.expect(expect);
    }

    /**
     * Condemns a destination: its waiting posts fail with {@code cause}, later ones fail at once,
     * and its listeners are told. Used for refusals past the bound, and by the endpoint when the
     * provider reports the peer gone.
     */
    public void condemn(PeerQueue peer, RdmaException cause) {
        destinations.condemn(peer, cause);
    }

    private int read(int rail) throws RdmaException {
        int n;
        try {
            n = queues[rail].read(batch, readCount);
        } catch (FabricException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, "reading the completion queue of rail " + rail + ": "
                    + e.getMessage(), e);
        }
        if (n == CompletionQueue.ERROR_AVAILABLE) {
            readError(rail);
            return 1;
        }
        // A fault in one completion's handling must not lose the others the read took off the queue:
        // each is handled, and the first fault is thrown after them.
        Exception fault = null;
        for (int i = 0; i < n; i++) {
            try {
                dispatch(rail, i);
            } catch (RdmaException | RuntimeException e) {
                if (fault == null) {
                    fault = e;
                } else {
                    fault.addSuppressed(e);
                }
            } finally {
                source = SOURCE_UNTOLD;
            }
        }
        if (fault instanceof RdmaException e) {
            throw e;
        }
        if (fault != null) {
            throw (RuntimeException) fault;
        }
        return n;
    }

    private void dispatch(int rail, int i) throws RdmaException {
        long context = batch.context(i);
        // A remote write's completion at its target belongs to no operation of ours, whatever its
        // context says: libfabric 1.17's shm reports a stale value there (the command's msg_id,
        // which its inline and inject paths never set), which would complete a random operation.
        // The flags say what it is.
        if (context == 0 || (batch.flags(i) & Fi.REMOTE_WRITE) != 0) {
            source = sourcesOfWrites[rail] ? batch.source(i) : SOURCE_UNTOLD;
            remote.remoteData(rail, batch.flags(i), batch.len(i), batch.data(i));
        } else {
            Operation op = operation(context, rail);
            landed(op);
            source = sourcesOfMessages[rail] && (batch.flags(i) & Fi.RECV) != 0 ? batch.source(i) : SOURCE_UNTOLD;
            op.completed(rail, batch.flags(i), batch.len(i), batch.data(i));
        }
    }

    private void readError(int rail) throws RdmaException {
        boolean read;
        try {
            read = queues[rail].readError(error);
        } catch (FabricException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, "reading an error completion of rail " + rail + ": "
                    + e.getMessage(), e);
        }
        if (!read) {
            return;
        }
        if (error.context() == 0) {
            // A peer's write into this endpoint failed here (shm reports it so when the writer went
            // away mid-write). It belongs to no operation of ours and names no communicator: the
            // communicator it was for learns of it from its peer's fate. Logged, and progress goes on.
            remoteWriteErrors++;
            LOG.log(System.Logger.Level.DEBUG, "a remote write on rail {0} failed: {1} ({2})", rail,
                    FiErrno.name(error.errno()), error.providerMessage());
            return;
        }
        Operation op = operation(error.context(), rail);
        PeerQueue peer = landed(op);
        String seen = op.describe() + " failed: " + FiErrno.name(error.errno()) + " (" + error.providerMessage() + ")";
        op.failed(new RdmaException(error.errno() == FiErrno.FI_ETRUNC ? ErrorCategory.REMOTE : ErrorCategory.SYSTEM,
                seen));
        if (peer != null && peer.remote() && unreachable(error.errno())) {
            // The provider says the peer cannot be reached: what else goes there fails with it.
            condemn(peer, new RdmaException(ErrorCategory.REMOTE, "peer " + peer.name() + ": " + seen));
        }
    }

    /**
     * Whether an error completion says the peer cannot be reached. A reset connection
     * (FI_ECANCELED, FI_ENOTCONN, FI_ECONNRESET) fails the operations it carried, but says nothing
     * for sure of the peer: rxm resets a connection also when a write meets a key the peer just
     * deregistered, and connects again on the next post.
     */
    static boolean unreachable(int errno) {
        return errno == FiErrno.FI_EHOSTUNREACH || errno == FiErrno.FI_ECONNREFUSED;
    }

    private Operation operation(long context, int rail) throws RdmaException {
        if (context < 1 || context > operations.size()) {
            throw new RdmaException(ErrorCategory.INTERNAL, "completion on rail " + rail + " with unknown context "
                    + context);
        }
        return operations.get((int) (context - 1));
    }
}
