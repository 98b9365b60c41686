package io.ofinet.rdma;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.rdma.rail.KeptReceive;
import io.ofinet.rdma.rail.RailSet;

/**
 * A zero-byte receive kept posted ({@link KeptReceive}) on a data rail for the write notices that
 * follow writes that carry no immediate data ({@link RailSet#noticeFor(long)}), and for the
 * sender's close signal sent behind its writes ({@link RailSet#confirmsCloseOnDataRails()});
 * posted where either applies ({@link RailSet#dataRailsTakeZeroByteMessages()}). The control
 * rails' posted receives ({@link ControlRailBuffer}) take zero-byte messages already.
 */
final class ZeroByteReceive extends KeptReceive {
    /** Receives kept posted per rail: a zero-byte message finding none waits in the provider's unexpected queue. */
    static final int PER_RAIL = 64;

    private final ImmediateDispatcher immediates;
    private final Endpoint on;
    /** The data rail it is posted on. */
    private final int rail;
    private final String what;

    private ZeroByteReceive(EndpointPools pools, Endpoint on, int rail, String what) {
        super(pools.host);
        this.immediates = pools.immediates;
        this.on = on;
        this.rail = rail;
        this.what = what;
    }

    /** Posts {@link #PER_RAIL} zero-byte receives on every data rail. */
    static void postAll(EndpointPools pools) {
        for (int r = 0; r < pools.dataRails; r++) {
            Endpoint on = pools.rails.dataEndpoint(r);
            String what = "zero-byte receive on data rail " + r;
            for (int i = 0; i < PER_RAIL; i++) {
                ZeroByteReceive receive = new ZeroByteReceive(pools, on, r, what);
                pools.engine.register(receive);
                receive.submit();
            }
        }
    }

    @Override
    public int engineRail() {
        return rail;
    }

    @Override
    protected int post() throws FabricException {
        return on.recv(0, 0, 0, Fi.ADDR_UNSPEC, context());
    }

    @Override
    protected boolean arrived(long flags, long len, long data) {
        if ((flags & Fi.REMOTE_CQ_DATA) != 0) {
            immediates.zeroByteMessage(rail, len, data);
        } else {
            immediates.dropStray(rail, len);
        }
        return true;
    }

    @Override
    protected String describe() {
        return what;
    }
}
