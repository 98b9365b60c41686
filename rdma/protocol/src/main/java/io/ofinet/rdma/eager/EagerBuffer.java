package io.ofinet.rdma.eager;

import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.progress.Operation;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.rail.KeptReceive;
import io.ofinet.rdma.wire.EagerMessageHeader;

/**
 * An entry of an endpoint's eager freelist ({@link EagerBuffers}): a buffer of {@code
 * eagerMaxSize} plus the header, registered for the data rails (bound to the endpoint's data-rail
 * endpoints where registrations are endpoint-scoped), with the two operations made once for it:
 * a receive posted on one data rail, and a send of an eager message from it.
 *
 * <p>A received eager message whose receive is not posted yet stays in its buffer (held) until
 * the receive comes; the buffer is posted again only then.
 */
public final class EagerBuffer {
    private final EagerBuffers pool;
    public final long address;
    private final MrHandle mr;
    public final Receive receive;
    public final Send send = new Send();

    public EagerBuffer(EagerBuffers pool, Freelist.Block block, long address) {
        this.pool = pool;
        this.address = address;
        this.mr = (MrHandle) block.handle();
        this.receive = new Receive();
    }

    /** Where the payload starts. */
    public long payload() {
        return address + EagerMessageHeader.BYTES;
    }

    /**
     * A receive of one eager message (or a zero-byte message) on a data rail, kept posted ({@link
     * KeptReceive}) except while it holds a message whose receive is not posted yet.
     */
    public final class Receive extends KeptReceive {
        private int rail;

        Receive() {
            super(EagerBuffer.this.pool.host);
        }

        /** The data rail it is posted on. */
        public int rail() {
            return rail;
        }

        @Override
        public int engineRail() {
            return rail;
        }

        /** Posts it on data rail {@code dataRail}. */
        void postOn(int dataRail) {
            this.rail = dataRail;
            submit();
        }

        @Override
        protected int post() throws FabricException {
            return pool.rails.dataEndpoint(rail).recv(address, pool.bufferBytes(),
                    mr.descriptor(RailKind.DATA, rail), Fi.ADDR_UNSPEC, context());
        }

        @Override
        protected boolean arrived(long flags, long len, long data) {
            if ((flags & Fi.REMOTE_CQ_DATA) == 0) {
                pool.arrivals.dropStray(rail, len);
            } else if (len == 0) {
                pool.arrivals.zeroByteMessage(rail, len, data);
            } else if (pool.arrivals.eager(rail, EagerBuffer.this, len, data)) {
                pool.held(EagerBuffer.this);
                return false;
            }
            return true;
        }

        /** Posted again through the endpoint's eager buffers, which post nothing once closed. */
        @Override
        public void repost() {
            pool.repost(EagerBuffer.this);
        }

        @Override
        protected String describe() {
            return RmaOp.EAGER_RECEIVE_ON_RAIL[rail];
        }
    }

    /** A send of the eager message in this buffer; the buffer returns to the freelist when it completes. */
    public final class Send extends Operation {
        private int rail;
        private long length;
        private long data;
        private long dest;
        private RmaOp.Owner owner;
        private int ownerGeneration;

        /** Sends {@code bytes} bytes of this buffer on data rail {@code dataRail} to {@code destination}. */
        public void start(int dataRail, long bytes, long immediate, long destination, PeerQueue queue, RmaOp.Owner who) {
            this.rail = dataRail;
            this.length = bytes;
            this.data = immediate;
            this.dest = destination;
            this.owner = who;
            this.ownerGeneration = who.generation();
            pool.engine.submit(this, queue);
        }

        @Override
        protected int post() throws FabricException {
            return pool.rails.dataEndpoint(rail).senddata(address, length, mr.descriptor(RailKind.DATA, rail), data,
                    dest, context());
        }

        @Override
        protected void completed(int engineRail, long flags, long len, long immediate) {
            RmaOp.Owner who = finish();
            if (who.generation() == ownerGeneration) {
                who.opDone(null);
            }
        }

        @Override
        protected void failed(RdmaException cause) {
            RmaOp.Owner who = finish();
            if (who.generation() == ownerGeneration) {
                who.opFailed(null, cause);
            }
        }

        private RmaOp.Owner finish() {
            RmaOp.Owner who = owner;
            owner = null;
            pool.release(EagerBuffer.this);
            return who;
        }

        @Override
        protected String describe() {
            return RmaOp.EAGER_SEND_ON_RAIL[rail];
        }
    }
}
