package io.ofinet.rdma;

import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.progress.Operation;
import io.ofinet.rdma.progress.PeerQueue;
import java.util.function.Consumer;

/**
 * An entry of an endpoint's control-buffer freelist: a registered native buffer on the control
 * rails, with the two operations made once for it: a posted receive of handshake messages and
 * notices on the first control rail (and, where control messages are sent rather than written, of
 * those on every control rail), and a send of a handshake message. A receive communicator also
 * takes one per posted receive and encodes its control message straight into it.
 */
final class ControlRailBuffer {
    /** Failures of one posted receive in a row after which it is not posted again. */
    static final int MAX_FAILURES_IN_A_ROW = 16;

    private static final System.Logger LOG = System.getLogger(ControlRailBuffer.class.getName());
    /** Bytes of a control buffer: any handshake message fits. */
    static final int BYTES = 4096;

    final RdmaEndpoint endpoint;
    final long address;
    final long descriptor;
    private final MrHandle mr;
    final Receive receive = new Receive();
    final Send send = new Send();

    ControlRailBuffer(RdmaEndpoint endpoint, Freelist.Block block, long address) {
        this.endpoint = endpoint;
        this.address = address;
        this.mr = (MrHandle) block.handle();
        this.descriptor = mr.descriptor(RailKind.CONTROL, 0);
    }

    /** The local descriptor of this buffer on control rail {@code rail}. */
    long descriptor(int rail) {
        return mr.descriptor(RailKind.CONTROL, rail);
    }

    /**
     * A posted receive of handshake messages; reposted after each message, and after a failed one
     * (a peer's oversized message fails it with FI_ETRUNC), so that no peer can leave the endpoint
     * without posted receives — up to {@link #MAX_FAILURES_IN_A_ROW}, past which the failure is
     * the endpoint's own and reposting would only repeat it.
     */
    final class Receive extends Operation {
        private int failuresInARow;
        /** The control rail it is posted on. */
        private int rail;

        /** Posts it on control rail {@code controlRail}. */
        void postOn(int controlRail) {
            this.rail = controlRail;
            repost();
        }

        @Override
        protected int post() throws FabricException {
            return endpoint.railSet.controlEndpoint(rail).recv(address, BYTES, descriptor(rail), Fi.ADDR_UNSPEC,
                    context());
        }

        @Override
        protected void completed(int engineRail, long flags, long len, long data) {
            failuresInARow = 0;
            if ((flags & Fi.REMOTE_CQ_DATA) != 0) {
                // Not a handshake: a control message that was sent, or a notice with immediate
                // data (a zero-byte message, a refusal).
                if (len > 0) {
                    endpoint.immediates.controlMessage(engineRail, address, (int) Math.min(len, BYTES), data);
                } else {
                    endpoint.immediates.notice(engineRail, len, data);
                }
                repost();
                return;
            }
            endpoint.handshake.onMessage(address, (int) Math.min(len, BYTES));
            repost();
        }

        private void repost() {
            endpoint.engine.submit(this, endpoint.peers.local(endpoint.dataRails() + rail));
        }

        @Override
        protected void failed(RdmaException cause) {
            if (endpoint.isClosed()) {
                return;
            }
            LOG.log(System.Logger.Level.WARNING, "a handshake receive failed: {0}", cause.getMessage());
            if (++failuresInARow <= MAX_FAILURES_IN_A_ROW) {
                repost();
            }
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
            endpoint.memory.write(address, message, 0, bytes);
            this.length = bytes;
            this.dest = destination;
            this.onSent = sent;
            this.onFailed = failedHook;
            endpoint.engine.submit(this, queue);
        }

        @Override
        protected int post() throws FabricException {
            return endpoint.railSet.controlEndpoint(0).send(address, length, descriptor, dest, context());
        }

        @Override
        protected void completed(int rail, long flags, long len, long data) {
            endpoint.pools.release(ControlRailBuffer.this);
            onSent.run();
        }

        @Override
        protected void failed(RdmaException cause) {
            endpoint.pools.release(ControlRailBuffer.this);
            onFailed.accept(cause);
        }

        @Override
        protected String describe() {
            return "handshake send on control rail 0";
        }
    }
}
