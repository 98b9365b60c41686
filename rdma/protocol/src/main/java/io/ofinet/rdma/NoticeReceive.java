package io.ofinet.rdma;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.Operation;

/**
 * A zero-byte receive kept posted on a data rail for the notices that follow writes when writes
 * carry no immediate data ({@link RailSet#noticeAfterWrite()}); the control rails' posted control
 * receives take notices already. Reposted after each notice, and after a failed one up to {@link
 * ControlRailBuffer#MAX_FAILURES_IN_A_ROW} in a row.
 */
final class NoticeReceive extends Operation {
    /** Receives kept posted per rail: a notice finding none waits in the provider's unexpected queue. */
    static final int PER_RAIL = 64;

    private static final System.Logger LOG = System.getLogger(NoticeReceive.class.getName());

    private final RdmaEndpoint endpoint;
    private final Endpoint on;
    /** The engine's index of the rail: data rails first, then control rails. */
    private final int rail;
    private final String what;
    private int failuresInARow;

    NoticeReceive(RdmaEndpoint endpoint, Endpoint on, int rail, String what) {
        this.endpoint = endpoint;
        this.on = on;
        this.rail = rail;
        this.what = what;
    }

    /** Posts {@link #PER_RAIL} notice receives on every data rail. */
    static void postAll(RdmaEndpoint endpoint) {
        for (int r = 0; r < endpoint.dataRails(); r++) {
            Endpoint on = endpoint.railSet.dataEndpoint(r);
            String what = "notice receive on data rail " + r;
            for (int i = 0; i < PER_RAIL; i++) {
                NoticeReceive receive = new NoticeReceive(endpoint, on, r, what);
                endpoint.engine.register(receive);
                receive.repost();
            }
        }
    }

    @Override
    protected int post() throws FabricException {
        return on.recv(0, 0, 0, Fi.ADDR_UNSPEC, context());
    }

    @Override
    protected void completed(int engineRail, long flags, long len, long data) {
        failuresInARow = 0;
        if ((flags & Fi.REMOTE_CQ_DATA) != 0) {
            endpoint.immediates.notice(rail, len, data);
        } else {
            endpoint.immediates.dropStray(rail, len);
        }
        repost();
    }

    private void repost() {
        endpoint.engine.submit(this, endpoint.peers.local(rail));
    }

    @Override
    protected void failed(RdmaException cause) {
        if (endpoint.isClosed()) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "a notice receive failed: {0}", cause.getMessage());
        if (++failuresInARow <= ControlRailBuffer.MAX_FAILURES_IN_A_ROW) {
            repost();
        }
    }

    @Override
    protected String describe() {
        return what;
    }
}
