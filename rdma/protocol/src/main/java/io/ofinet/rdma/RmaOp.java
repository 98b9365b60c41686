package io.ofinet.rdma;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.Operation;

/**
 * One posted data-path operation — an RDMA write with immediate data, an RDMA read, or a send
 * with immediate data — made once, pooled per endpoint, and filled for each use. Its owner hears
 * when it completes or fails.
 */
final class RmaOp extends Operation {
    /** Descriptions per rail, made once: describing an operation allocates nothing. */
    static final String[] WRITE_ON_DATA_RAIL = names("write on data rail ");
    static final String[] READ_ON_DATA_RAIL = names("flush read on data rail ");
    static final String[] CONTROL_ON_RAIL = names("control message on control rail ");

    private static String[] names(String prefix) {
        String[] names = new String[io.ofinet.rdma.wire.Limits.MAX_DATA_RAILS];
        for (int i = 0; i < names.length; i++) {
            names[i] = prefix + i;
        }
        return names;
    }

    enum Kind { WRITEDATA, READ, SENDDATA }

    /** Who waits for the operation. */
    interface Owner {
        void opDone(RmaOp op);

        void opFailed(RmaOp op, RdmaException cause);

        /** The owner's current use; an operation of an earlier use reports nothing. */
        default int generation() {
            return 0;
        }
    }

    private final RdmaEndpoint endpoint;
    private Kind kind;
    private Endpoint target;
    private String what;
    long buf;
    long len;
    long desc;
    long data;
    long peer;
    long remote;
    long key;
    int rail;
    private Owner owner;
    private int ownerGeneration;

    RmaOp(RdmaEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    RmaOp set(Kind operation, Endpoint on, int railIndex, String description, Owner who) {
        this.kind = operation;
        this.target = on;
        this.rail = railIndex;
        this.what = description;
        this.owner = who;
        this.ownerGeneration = who.generation();
        return this;
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
            default:
                result = target.senddata(buf, len, desc, data, peer, context());
        }
        if (result == Endpoint.POSTED) {
            endpoint.pools.counts.posted(kind);
        }
        return result;
    }

    @Override
    protected void completed(int engineRail, long flags, long length, long immediate) {
        endpoint.pools.counts.completed(kind);
        Owner who = owner;
        owner = null;
        endpoint.pools.releaseOp(this);
        if (who.generation() == ownerGeneration) {
            who.opDone(this);
        }
    }

    @Override
    protected void failed(RdmaException cause) {
        Owner who = owner;
        owner = null;
        endpoint.pools.releaseOp(this);
        if (who.generation() == ownerGeneration) {
            who.opFailed(this, cause);
        }
    }

    @Override
    protected String describe() {
        return what;
    }
}
