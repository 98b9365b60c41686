package io.ofinet.rdma.op;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.Operation;
import io.ofinet.rdma.progress.PeerQueue;

/**
 * One posted data-path operation — an RDMA write with immediate data, an RDMA write announced by a
 * notice message, an RDMA read, a send with immediate data, or a tagged receive or message — made
 * once, pooled per endpoint, and filled for each use. Its owner hears when it completes or fails.
 *
 * <p>A {@link Kind#WRITE_NOTICE} goes out in two steps on the same endpoint to the same peer: the
 * plain write, then a zero-byte send carrying {@link #data} — posted right behind the write where
 * the provider orders sends after writes (see {@link Ops}), else once the
 * write has completed here. Its owner hears once, when both have completed, or when the last of
 * them has landed after either failed.
 */
public final class RmaOp extends Operation {
    private static final System.Logger LOG = System.getLogger(RmaOp.class.getName());
    /** Descriptions per rail, made once: describing an operation allocates nothing. */
    public static final String[] WRITE_ON_DATA_RAIL = names("write on data rail ");
    public static final String[] READ_ON_DATA_RAIL = names("flush read on data rail ");
    public static final String[] CONTROL_ON_RAIL = names("announcement on control rail ");
    public static final String[] EAGER_RECEIVE_ON_RAIL = names("eager receive on data rail ");
    public static final String[] EAGER_SEND_ON_RAIL = names("eager send on data rail ");
    public static final String[] TAGGED_RECEIVE_ON_RAIL = names("tagged receive on data rail ");
    public static final String[] TAGGED_SEND_ON_RAIL = names("tagged message on data rail ");

    private static String[] names(String prefix) {
        String[] names = new String[io.ofinet.rdma.wire.Limits.MAX_DATA_RAILS];
        for (int i = 0; i < names.length; i++) {
            names[i] = prefix + i;
        }
        return names;
    }

    public enum Kind { WRITEDATA, READ, SENDDATA, WRITE_NOTICE, TRECV, TSENDDATA }

    /**
     * What an operation holds until it ends — the buffer it sends from, a count of receives still
     * posted — released then, whatever became of its owner meanwhile: the provider may use it until
     * then.
     */
    public interface Held {
        void released();
    }

    /** Who waits for the operation. */
    public interface Owner {
        void opDone(RmaOp op);

        void opFailed(RmaOp op, RdmaException cause);

        /** The owner's current use; an operation of an earlier use reports nothing. */
        default int generation() {
            return 0;
        }
    }

    /** For operations whose fate nobody waits on (zero-byte messages: signals, errors). */
    public static final Owner NO_OWNER = new Owner() {
        @Override
        public void opDone(RmaOp op) {
        }

        @Override
        public void opFailed(RmaOp op, RdmaException cause) {
        }
    };

    private final Ops ops;
    private Kind kind;
    private Endpoint target;
    private String what;
    public long buf;
    public long len;
    public long desc;
    public long data;
    public long peer;
    public long remote;
    public long key;
    /** A tagged receive's or message's tag. */
    public long tag;
    /** The receive buffer a tagged receive is for. */
    public int index;
    /** Bytes a receive took, as its completion says. */
    public long received;
    public int rail;
    /** Whether it was posted to the provider, and whether its cancel was asked for. */
    private boolean posted;
    private boolean cancelled;
    private Owner owner;
    private int ownerGeneration;
    /** Where it goes; a write's notice follows it there. */
    private PeerQueue queue;
    /** Whether a {@link Kind#WRITE_NOTICE}'s next post is its notice (its write is posted). */
    private boolean noticing;
    /** Completions of a {@link Kind#WRITE_NOTICE} still to come: its write's, its notice's. */
    private int awaiting;
    /** The first failure of a {@link Kind#WRITE_NOTICE} whose other step has yet to land. */
    private RdmaException failure;
    /** What it holds and releases at its end, or null; set after {@link #set}. */
    public Held held;

    RmaOp(Ops ops) {
        this.ops = ops;
    }

    public RmaOp set(Kind operation, Endpoint on, int railIndex, String description, Owner who) {
        this.kind = operation;
        this.target = on;
        this.rail = railIndex;
        this.what = description;
        this.owner = who;
        this.ownerGeneration = who.generation();
        this.noticing = false;
        this.awaiting = 0;
        this.failure = null;
        this.posted = false;
        this.cancelled = false;
        this.received = 0;
        this.held = null;
        return this;
    }

    /**
     * Sets it as a write of {@code buf[0, len)} to {@code remote}, announced to the target as the
     * endpoint's rails require: with immediate data, or by a notice message after it.
     */
    public RmaOp write(Endpoint on, int railIndex, String description, Owner who, boolean notice) {
        return set(notice ? Kind.WRITE_NOTICE : Kind.WRITEDATA, on, railIndex, description, who);
    }

    /** Submits it to the progress engine, to {@code destination}'s queue. */
    public void submit(PeerQueue destination) {
        this.queue = destination;
        ops.submit(this, destination);
    }

    @Override
    protected int post() throws FabricException {
        int result;
        switch (kind) {
            case WRITEDATA:
                result = target.writedata(buf, len, desc, data, peer, remote, key, context());
                break;
            case READ:
                result = target.read(buf, len, desc, peer, remote, key, context());
                break;
            case WRITE_NOTICE:
                return postWriteNotice();
            case TRECV:
                if (cancelled) {
                    throw new FabricException("fi_trecv", FiErrno.FI_ECANCELED, "cancelled before it was posted");
                }
                result = target.trecv(buf, len, desc, peer, tag, 0, context());
                break;
            case TSENDDATA:
                result = target.tsenddata(buf, len, desc, data, peer, tag, context());
                break;
            default:
                result = target.senddata(buf, len, desc, data, peer, context());
        }
        if (result == Endpoint.POSTED) {
            posted = true;
            ops.counts().posted(kind);
        }
        return result;
    }

    /**
     * Asks for its cancel (a tagged receive's): the provider's, where it is posted; else it fails
     * when its turn to be posted comes. Either way its owner hears of it as a failure, or as a
     * completion where the data was landing already; {@link #cancelled()} then says so.
     */
    public void cancel() {
        if (cancelled) {
            return;
        }
        cancelled = true;
        if (posted) {
            try {
                target.cancel(context());
            } catch (FabricException e) {
                LOG.log(System.Logger.Level.WARNING, "{0}: cancel failed: {1}", what, e.getMessage());
            }
        }
    }

    /** Whether its cancel was asked for. */
    public boolean cancelled() {
        return cancelled;
    }

    /** Posts the write, and its notice right behind it where the provider keeps them in order. */
    private int postWriteNotice() throws FabricException {
        if (noticing) {
            int result = target.senddata(0, 0, 0, data, peer, context());
            if (result == Endpoint.POSTED) {
                noticing = false;
                awaiting = 1;
            }
            return result;
        }
        int result = target.write(buf, len, desc, peer, remote, key, context());
        if (result != Endpoint.POSTED) {
            return result;
        }
        ops.counts().posted(kind);
        noticing = true;
        awaiting = 1;
        if (ops.noticeBehindWrite()) {
            try {
                if (target.senddata(0, 0, 0, data, peer, context()) == Endpoint.POSTED) {
                    noticing = false;
                    awaiting = 2;
                }
            } catch (FabricException e) {
                // The write is in flight: the notice is tried again when the write completes.
            }
        }
        return Endpoint.POSTED;
    }

    @Override
    protected int completionsAwaited() {
        return kind == Kind.WRITE_NOTICE ? awaiting : 1;
    }

    @Override
    protected void completed(int engineRail, long flags, long length, long immediate) {
        received = length;
        if (kind == Kind.WRITE_NOTICE) {
            if (--awaiting > 0) {
                return; // the write's or the notice's completion; the other is still to come
            }
            if (failure != null) {
                failed(failure);
                return;
            }
            if (noticing) {
                // The write has completed and its notice is not out yet: it follows on the same
                // endpoint, so the target sees it after the data.
                ops.submit(this, queue);
                return;
            }
        }
        ops.counts().completed(kind);
        Owner who = owner;
        owner = null;
        releaseHeld();
        ops.release(this);
        if (who.generation() == ownerGeneration) {
            who.opDone(this);
        }
    }

    @Override
    protected void failed(RdmaException cause) {
        if (kind == Kind.WRITE_NOTICE && awaiting > 1) {
            // Its other step is still in flight: the owner hears when that one lands too.
            awaiting--;
            if (failure == null) {
                failure = cause;
            }
            return;
        }
        RdmaException first = failure != null ? failure : cause;
        Owner who = owner;
        owner = null;
        releaseHeld();
        ops.release(this);
        if (who.generation() == ownerGeneration) {
            who.opFailed(this, first);
        }
    }

    private void releaseHeld() {
        Held h = held;
        if (h != null) {
            held = null;
            h.released();
        }
    }

    @Override
    protected String describe() {
        return what;
    }
}
