package io.ofinet.fabric.ofi;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.ResourceTracker;

/** An open libfabric fabric with its own copy of the fi_info it came from. */
final class OfiFabric implements Fabric {
    private final FabricInfo info;
    private final long infoCopy;
    private final long fabric;
    private final ResourceTracker domains = new ResourceTracker();
    private boolean closed;

    OfiFabric(FabricInfo info, long infoCopy, long fabric) {
        this.info = info;
        this.infoCopy = infoCopy;
        this.fabric = fabric;
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    @Override
    public synchronized Domain openDomain() throws FabricException {
        if (closed) {
            throw new IllegalStateException("fabric is closed");
        }
        long ops = Ops.getLong(fabric + NativeOffsets.FABRIC_OPS);
        Memory out = Ops.scratch(8);
        Ops.check("fi_domain", info.provider(), Ops.fn(ops, NativeOffsets.OPS_FABRIC_DOMAIN, "fi_domain",
                info.provider()).invokeInt(new Object[] {fabric, infoCopy, Pointer.nativeValue(out), 0L}));
        NativeUsage.opened();
        OfiDomain domain = new OfiDomain(this, out.getLong(0));
        domains.add(domain);
        return domain;
    }

    long infoCopy() {
        return infoCopy;
    }

    void closed(OfiDomain domain) {
        domains.remove(domain);
    }

    @Override
    public synchronized void close() throws FabricException {
        if (closed) {
            return;
        }
        domains.requireEmpty("fi_close(fabric)", "domains");
        Ops.close(fabric, "fabric", info.provider());
        OfiLibrary.lib().fi_freeinfo(new Pointer(infoCopy));
        closed = true;
    }
}
