package io.ofinet.rdma.comm;

import io.ofinet.config.DeviceParameters;
import io.ofinet.fabric.HostMemory;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.eager.EagerBuffers;
import io.ofinet.rdma.op.Ops;
import io.ofinet.rdma.rail.Peers;
import io.ofinet.rdma.rail.RailSet;

/**
 * What an endpoint gives each of its communicators at construction, and all a communicator uses
 * of it: the endpoint as a step to run ({@link CommHost}), its host memory, its rails and the
 * queues of their peers, its pooled operations, its control and eager buffers, its flush buffer and
 * its parameters.
 *
 * @param dataRails the endpoint's data rails (its rail layout's)
 * @param controlRails the endpoint's control rails
 * @param flushBuffer the registration a flush reads into (data rails)
 */
public record CommParts(CommHost host, HostMemory memory, RailSet rails, int dataRails, int controlRails, Peers peers,
        Ops ops, ControlBuffers controlBuffers, EagerBuffers eager, MrHandle flushBuffer, DeviceParameters params) {
    /** The largest payload of an eager message; 0 when messages do not go eagerly. */
    public long eagerMax() {
        return eager != null && eager.enabled() ? eager.payloadBytes() : 0;
    }
}
