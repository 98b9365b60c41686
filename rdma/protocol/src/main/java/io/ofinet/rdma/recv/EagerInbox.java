package io.ofinet.rdma.recv;

import io.ofinet.fabric.HostMemory;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.eager.EagerBuffer;
import io.ofinet.rdma.eager.EagerBuffers;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.Limits;

/**
 * A receive communicator's eager messages, requests to send and heads (docs/PROTOCOL.md, "Matching
 * by tag"): each carries its send's tag and ordinal and goes to the posted buffer with the same;
 * one whose buffer is not posted yet stays in its eager buffer (held) until it is, at most {@link
 * Limits#CREDITS} of them. Each one used up gives the sender back a credit, returned in batches of
 * half the credits ({@link OwedToSender}). Touched only with the endpoint held.
 */
public final class EagerInbox {
    /** Credits returned in one signal. */
    public static final int CREDIT_BATCH = Limits.CREDITS / 2;
    /**
     * Messages held from which the sender may be out of credits: with fewer, more than a batch of
     * credits is due and goes back. From this many on, every posted receive is announced, so that
     * the sender can write into it without a credit.
     */
    public static final int RUNNING_AHEAD = CREDIT_BATCH;

    private final RecvComm comm;
    private final HostMemory memory;
    private final EagerBuffers eager;
    private final EagerMessageHeader header = new EagerMessageHeader();
    private final int[] heldTag = new int[Limits.CREDITS];
    private final int[] heldOrdinal = new int[Limits.CREDITS];
    private final int[] heldSeq = new int[Limits.CREDITS];
    private final long[] heldLength = new long[Limits.CREDITS];
    private final EagerBuffer[] held = new EagerBuffer[Limits.CREDITS];
    private int heldCount;
    private final OwedToSender owed;

    public EagerInbox(RecvComm comm, CommParts parts) {
        this.comm = comm;
        this.memory = parts.memory();
        this.eager = parts.eager();
        this.owed = new OwedToSender(comm, parts.ops());
    }

    /** The largest payload an eager message may carry here. */
    private long maxPayload() {
        return eager.payloadBytes();
    }

    /**
     * Whether the message of {@code len} bytes in {@code buffer} carries this communicator's token
     * in its header: one without it is not its peer's, and is dropped without failing it.
     */
    public boolean carriesToken(EagerBuffer buffer, long len) {
        return len >= EagerMessageHeader.BYTES
                && EagerMessageHeader.tokenAt(memory, buffer.address) == comm.token();
    }

    /** Decodes and checks the header of the message of {@code len} bytes in {@code buffer}. */
    public void check(EagerBuffer buffer, long len) throws RdmaException {
        header.decode(memory, buffer.address, len, maxPayload());
    }

    /**
     * Message {@code seq} (an eager message, request to send or head) arrived in {@code buffer}
     * ({@code len} bytes): delivered to the posted buffer with its tag and ordinal, held until that
     * is posted, or dropped when its receive has failed (unless it holds its failure for its buffers,
     * {@link RecvRequest#fail}: it then takes it).
     *
     * @return whether the buffer is held
     */
    boolean arrived(EagerBuffer buffer, long len, int seq) throws RdmaException {
        check(buffer, len);
        int tag = header.tag();
        int ordinal = header.ordinal();
        RecvRequest request = comm.buffers().with(tag, ordinal);
        if (request != null) {
            if (request.dropsArrivals()) {
                used(); // its receive failed, and it with it
                return false;
            }
            return deliverChecked(request, PostedBuffers.buffer(request, tag, ordinal), seq, buffer, len);
        }
        if (comm.buffers().passed(tag, ordinal)) {
            used(); // its receive ended (it failed): what comes for it is dropped
            return false;
        }
        hold(buffer, len, seq, tag, ordinal);
        return true;
    }

    /** Keeps message {@code seq} with {@code tag} and {@code ordinal}, whose buffer is not posted yet. */
    private void hold(EagerBuffer buffer, long len, int seq, int tag, int ordinal) throws RdmaException {
        if (heldCount == held.length) {
            throw new RdmaException(ErrorCategory.REMOTE, "eager message " + seq + " arrived beyond the sender's "
                    + Limits.CREDITS + " credits");
        }
        heldTag[heldCount] = tag;
        heldOrdinal[heldCount] = ordinal;
        heldSeq[heldCount] = seq;
        heldLength[heldCount] = len;
        held[heldCount++] = buffer;
        if (heldCount >= RUNNING_AHEAD) {
            // The sender may be out of credits: the posted receives are announced, so that it can
            // write into them.
            comm.announcePosted();
        }
    }

    /** Messages held now. */
    public int held() {
        return heldCount;
    }

    /**
     * Message {@code seq} in {@code buffer}, whose header was decoded last, for buffer {@code i} of
     * the posted {@code request}: copied, or taken for the writes that follow its request to send.
     *
     * @return whether the buffer is held (never: it is used up, or refused)
     */
    private boolean deliverChecked(RecvRequest request, int i, int seq, EagerBuffer buffer, long len)
            throws RdmaException {
        boolean data = header.kind() == EagerMessageHeader.KIND_EAGER;
        if ((request.matched & (1 << i)) != 0 || (((data ? request.taken : request.eagerFilled) >>> i) & 1) != 0) {
            throw new RdmaException(ErrorCategory.REMOTE, "eager message " + seq + " for buffer " + i
                    + " of receive " + request.seq + ", which something else took");
        }
        request.matched |= 1 << i;
        long size = header.size();
        if (size > request.capacity[i]) {
            refuse(request, i, seq, "irecv: the sender's message of " + size + " bytes did not fit receive buffer " + i
                    + " of " + request.capacity[i] + " bytes (tag " + request.tag[i] + "); nothing was written");
            return false;
        }
        if (data) {
            if (size > 0) {
                memory.copy(buffer.payload(), request.address[i], size);
            }
            request.eagerFilled(i, size);
        } else if (header.kind() == EagerMessageHeader.KIND_HEAD && !request.tagged(i)) {
            // At most eagerMaxSize bytes, fewer than the send's size, which fits the buffer (decode, above).
            memory.copy(buffer.payload(), request.address[i], header.payload());
            request.head(i, header.payload());
        } else {
            // A request to send; or a head for a buffer that takes a tagged message, which brings the head's bytes again.
            request.taken |= 1 << i;
        }
        used();
        comm.progressed(request);
        return false;
    }

    /**
     * Delivers what is held for the receive just posted; once it has failed (a message that did not
     * fit an earlier buffer, an announcement that failed), drops what is held for its other buffers,
     * whose ordinals no later receive has. A held message that breaks a rule fails the communicator
     * (the peer broke the protocol on it), not the call that posted the receive: the receive fails
     * with it.
     */
    public void posted(RecvRequest request) {
        try {
            for (int i = 0; i < request.buffers && heldCount > 0; i++) {
                deliverHeld(request, i);
            }
        } catch (RdmaException e) {
            comm.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "receive communicator " + comm.id() + ": "
                    + e.getMessage(), e));
        }
    }

    /** Delivers the held message for buffer {@code i} of {@code request}, if there is one. */
    private void deliverHeld(RecvRequest request, int i) throws RdmaException {
        int ordinal = request.ordinal[i] & Limits.ORDINAL_MASK;
        for (int h = 0; h < heldCount; h++) {
            if (heldTag[h] == request.tag[i] && heldOrdinal[h] == ordinal) {
                EagerBuffer buffer = held[h];
                long len = heldLength[h];
                int seq = heldSeq[h];
                remove(h);
                if (request.dropsArrivals()) {
                    eager.unhold(buffer);
                    used();
                    return;
                }
                boolean kept = false;
                try {
                    check(buffer, len);
                    kept = deliverChecked(request, i, seq, buffer, len);
                } finally {
                    if (!kept) {
                        eager.unhold(buffer);
                    }
                }
                return;
            }
        }
    }

    private void remove(int h) {
        heldCount--;
        heldTag[h] = heldTag[heldCount];
        heldOrdinal[h] = heldOrdinal[heldCount];
        heldSeq[h] = heldSeq[heldCount];
        heldLength[h] = heldLength[heldCount];
        held[h] = held[heldCount];
        held[heldCount] = null;
    }

    /**
     * The receive fails: message {@code seq} did not fit its buffer {@code i}; the sender is told,
     * now or, when no operation is free, at the next return of credits or look at stalls. Its credit
     * falls due after the refusal has gone or is owed, so that no credit goes back before it.
     */
    private void refuse(RecvRequest request, int i, int seq, String why) throws RdmaException {
        request.settled(i);
        request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, why));
        owed.refused(seq);
        used();
    }

    /** An eager message or request to send was used up (or dropped): its credit is due back. */
    public void used() {
        owed.used();
    }

    /** Returns the credits due as {@link OwedToSender#returnCredits} does. */
    public void returnCredits(int atLeast) {
        owed.returnCredits(atLeast);
    }

    /** The communicator closed: the held buffers are posted again. */
    public void dropAll() {
        for (int h = 0; h < heldCount; h++) {
            eager.unhold(held[h]);
            held[h] = null;
        }
        heldCount = 0;
    }
}
