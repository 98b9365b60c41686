package io.ofinet.rdma;

import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.comm.ControlBuffers;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.progress.Operation;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.rail.KeptReceive;
import java.util.function.Consumer;

/**
 * An entry of an endpoint's control-buffer freelist: a registered native buffer on the control
 * rails, which carries handshake messages, zero-byte messages (signals and errors), and
 * announcements. It has the two operations made once for it: a posted receive of handshake
 * messages and zero-byte messages on the first control rail (and, where announcements are sent
 * rather than written, of those on every control rail), and a send of a handshake message. A
 * receive communicator also takes one per posted receive and encodes its announcement straight
 * into it.
 */
final class ControlRailBuffer implements ControlBuffers.Buffer {
    /** Bytes of a control buffer: any handshake message fits. */
    static final int BYTES = 4096;

    private final EndpointPools pool;
    final long address;
    final long descriptor;
    private final MrHandle mr;
    final Receive receive;
    final Send send = new Send();

    ControlRailBuffer(EndpointPools pool, Freelist.Block block, long address) {
        this.pool = pool;
        this.address = address;
        this.mr = (MrHandle) block.handle();
        this.descriptor = mr.descriptor(RailKind.CONTROL, 0);
        this.receive = new Receive(); // after the pool, which it keeps
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public void released() {
        pool.release(this);
    }

    /** The local descriptor of this buffer on control rail {@code rail}. */
    @Override
    public long descriptor(int rail) {
        return mr.descriptor(RailKind.CONTROL, rail);
    }

    /**
     * A posted receive of handshake messages and zero-byte messages (and, where announcements are sent
     * rather than written, of those), kept posted ({@link KeptReceive}).
     */
    final class Receive extends KeptReceive {
        /** The control rail it is posted on. */
        private int rail;

        Receive() {
            super(ControlRailBuffer.this.pool.host);
        }

        /** Posts it on control rail {@code controlRail}. */
        void postOn(int controlRail) {
            this.rail = controlRail;
            submit();
        }

        @Override
        public int engineRail() {
            return pool.dataRails + rail;
        }

        @Override
        protected int post() throws FabricException {
            return pool.rails.controlEndpoint(rail).recv(address, BYTES, descriptor(rail), Fi.ADDR_UNSPEC,
                    context());
        }

        @Override
        protected boolean arrived(long flags, long len, long data) {
            if ((flags & Fi.REMOTE_CQ_DATA) == 0) {
                pool.handshake.onMessage(address, (int) Math.min(len, BYTES));
            } else if (len > 0) {
                // An announcement that was sent rather than written.
                pool.immediates.announcementReceived(engineRail(), address, (int) Math.min(len, BYTES), data);
            } else {
                // A zero-byte message with immediate data (a signal, an error, a zero-byte send).
                pool.immediates.zeroByteMessage(engineRail(), len, data);
            }
            return true;
        }

        @Override
        protected String describe() {
            return rail == 0 ? "handshake receive on control rail 0" : "control receive on control rail " + rail;
        }
    }

    /** A send of one handshake message; the buffer returns to the freelist when it completes. */
    final class Send extends Operation {
        private long dest;
        private int length;
        private Runnable onSent;
        private Consumer<RdmaException> onFailed;

        void start(byte[] message, int bytes, long destination, PeerQueue queue, Runnable sent,
                Consumer<RdmaException> failedHook) {
            pool.memory.write(address, message, 0, bytes);
            this.length = bytes;
            this.dest = destination;
            this.onSent = sent;
            this.onFailed = failedHook;
            pool.engine.submit(this, queue);
        }

        @Override
        protected int post() throws FabricException {
            return pool.rails.controlEndpoint(0).send(address, length, descriptor, dest, context());
        }

        @Override
        protected void completed(int rail, long flags, long len, long data) {
            Runnable sent = onSent;
            forgetHooks();
            pool.release(ControlRailBuffer.this);
            sent.run();
        }

        @Override
        protected void failed(RdmaException cause) {
            Consumer<RdmaException> failedHook = onFailed;
            forgetHooks();
            pool.release(ControlRailBuffer.this);
            failedHook.accept(cause);
        }

        /** A pooled buffer keeps nothing of the communicator its last message was for. */
        private void forgetHooks() {
            onSent = null;
            onFailed = null;
        }

        @Override
        protected String describe() {
            return "handshake send on control rail 0";
        }
    }
}
