package io.ofinet.fabric.ofi;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.fabric.ResourceTracker;
import java.lang.ref.Reference;

/**
 * A libfabric RDM endpoint. Posts go through the {@link DataPath} with this endpoint's function
 * pointers read once at enable; the {@code *msg} forms fill structures in native memory
 * allocated once per endpoint, so posting allocates nothing beyond what the data path does.
 */
final class OfiEndpoint implements Endpoint {
    // Layout of the per-endpoint scratch memory for the *msg calls.
    private static final int SCRATCH_IOV = 0;
    private static final int SCRATCH_DESC = SCRATCH_IOV + NativeOffsets.IOVEC_SIZE;
    private static final int SCRATCH_RMA_IOV = SCRATCH_DESC + 8;
    private static final int SCRATCH_MSG = 64;
    private static final int SCRATCH_SIZE = SCRATCH_MSG + NativeOffsets.MSG_RMA_SIZE;

    private final OfiDomain domain;
    private final long ep;
    private final OfiCompletionQueue cq;
    private final OfiAddressVector av;
    private final DataPath path = DataPaths.current();
    private final long scratch;
    private final ResourceTracker boundRegions = new ResourceTracker();
    private DataPath.EndpointCalls calls;
    /** On shm, the endpoint's name in /dev/shm, removed when the JVM ends while it is open ({@link ShmNames}). */
    private String shmName;
    private boolean closed;

    OfiEndpoint(OfiDomain domain, long ep, OfiCompletionQueue cq, OfiAddressVector av) {
        this.domain = domain;
        this.ep = ep;
        this.cq = cq;
        this.av = av;
        this.scratch = NativeMemory.allocate(SCRATCH_SIZE);
        cq.users().add(this);
        av.users().add(this);
    }

    long fid() {
        return ep;
    }

    ResourceTracker boundRegions() {
        return boundRegions;
    }

    @Override
    public FabricInfo info() {
        return domain.info();
    }

    @Override
    public synchronized void enable() throws FabricException {
        requireOpen();
        // shm's name is the same before fi_enable and after: read once, it serves both.
        byte[] shmAddress = shmName == null && new ProviderPolicy(domain.provider()).namesEndpointsInDevShm()
                ? name() : null;
        if (shmAddress != null) {
            ShmNames.removeStale(shmAddress);
        }
        Ops.enable(ep, "fi_enable(endpoint)", domain.provider());
        calls = path.endpoint(ep, DataPaths.waitsOnPeers(domain.provider()));
        if (shmAddress != null) {
            shmName = ShmNames.opened(shmAddress);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("endpoint is closed");
        }
    }

    private DataPath.EndpointCalls calls(String call) throws FabricException {
        DataPath.EndpointCalls c = calls;
        if (c == null) {
            throw new FabricException(call + " (provider " + domain.provider() + ")", FiErrno.FI_EOPBADSTATE,
                    closed ? "the endpoint is closed" : "the endpoint is not enabled");
        }
        return c;
    }

    @Override
    public byte[] name() throws FabricException {
        requireOpen();
        long cm = Ops.getLong(ep + NativeOffsets.EP_CM);
        Memory addr = Ops.scratch(256);
        Memory len = Ops.scratch(8);
        len.setLong(0, 256);
        try {
            Ops.check("fi_getname", domain.provider(), Ops.fn(cm, NativeOffsets.OPS_CM_GETNAME, "fi_getname",
                    domain.provider()).invokeInt(new Object[] {ep, Pointer.nativeValue(addr), Pointer.nativeValue(len)}));
            return addr.getByteArray(0, (int) len.getLong(0));
        } finally {
            Reference.reachabilityFence(addr); // written by the call, also where it fails
            Reference.reachabilityFence(len);
        }
    }

    /** 0 and -FI_EAGAIN are results; anything else negative is a failure of the call. */
    private int posted(String call, long rc) throws FabricException {
        if (rc == 0) {
            return POSTED;
        }
        if (rc == -FiErrno.FI_EAGAIN) {
            return AGAIN;
        }
        throw Ops.error(call, domain.provider(), rc);
    }

    @Override
    public int send(long buf, long len, long desc, long dest, long context) throws FabricException {
        return posted("fi_send", calls("fi_send").send(buf, len, desc, dest, context));
    }

    @Override
    public int recv(long buf, long len, long desc, long src, long context) throws FabricException {
        return posted("fi_recv", calls("fi_recv").recv(buf, len, desc, src, context));
    }

    @Override
    public int senddata(long buf, long len, long desc, long data, long dest, long context)
            throws FabricException {
        return posted("fi_senddata", calls("fi_senddata").senddata(buf, len, desc, data, dest, context));
    }

    @Override
    public int write(long buf, long len, long desc, long dest, long remoteAddr, long key, long context)
            throws FabricException {
        return posted("fi_write", calls("fi_write").write(buf, len, desc, dest, remoteAddr, key, context));
    }

    @Override
    public int writedata(long buf, long len, long desc, long data, long dest, long remoteAddr, long key,
            long context) throws FabricException {
        return posted("fi_writedata", calls("fi_writedata").writedata(buf, len, desc, data, dest, remoteAddr,
                key, context));
    }

    @Override
    public int read(long buf, long len, long desc, long src, long remoteAddr, long key, long context)
            throws FabricException {
        return posted("fi_read", calls("fi_read").read(buf, len, desc, src, remoteAddr, key, context));
    }

    @Override
    public int trecv(long buf, long len, long desc, long src, long tag, long ignore, long context)
            throws FabricException {
        return posted("fi_trecv", calls("fi_trecv").trecv(buf, len, desc, src, tag, ignore, context));
    }

    @Override
    public int tsenddata(long buf, long len, long desc, long data, long dest, long tag, long context)
            throws FabricException {
        return posted("fi_tsenddata", calls("fi_tsenddata").tsenddata(buf, len, desc, data, dest, tag, context));
    }

    @Override
    public int cancel(long context) throws FabricException {
        long rc = calls("fi_cancel").cancel(context);
        return rc == NOT_FOUND ? NOT_FOUND : posted("fi_cancel", rc);
    }

    /** Fills one iovec and its descriptor, and the common fields of fi_msg / fi_msg_rma. */
    private long fillMsg(long buf, long len, long desc, long addr, long context, long data, boolean rma) {
        path.putLong(scratch + SCRATCH_IOV + NativeOffsets.IOVEC_BASE, buf);
        path.putLong(scratch + SCRATCH_IOV + NativeOffsets.IOVEC_LEN, len);
        path.putLong(scratch + SCRATCH_DESC, desc);
        long msg = scratch + SCRATCH_MSG;
        path.putLong(msg + NativeOffsets.MSG_IOV, scratch + SCRATCH_IOV);
        path.putLong(msg + NativeOffsets.MSG_DESC, scratch + SCRATCH_DESC);
        path.putLong(msg + NativeOffsets.MSG_IOV_COUNT, 1);
        path.putLong(msg + NativeOffsets.MSG_ADDR, addr);
        path.putLong(msg + (rma ? NativeOffsets.MSG_RMA_CONTEXT : NativeOffsets.MSG_CONTEXT), context);
        path.putLong(msg + (rma ? NativeOffsets.MSG_RMA_DATA : NativeOffsets.MSG_DATA), data);
        return msg;
    }

    private long fillRmaMsg(long buf, long len, long desc, long peer, long remoteAddr, long key, long data,
            long context) {
        long msg = fillMsg(buf, len, desc, peer, context, data, true);
        long rmaIov = scratch + SCRATCH_RMA_IOV;
        path.putLong(rmaIov + NativeOffsets.RMA_IOV_ADDR, remoteAddr);
        path.putLong(rmaIov + NativeOffsets.RMA_IOV_LEN, len);
        path.putLong(rmaIov + NativeOffsets.RMA_IOV_KEY, key);
        path.putLong(msg + NativeOffsets.MSG_RMA_RMA_IOV, rmaIov);
        path.putLong(msg + NativeOffsets.MSG_RMA_RMA_IOV_COUNT, 1);
        return msg;
    }

    @Override
    public int sendmsg(long buf, long len, long desc, long dest, long data, long context, long flags)
            throws FabricException {
        DataPath.EndpointCalls c = calls("fi_sendmsg");
        return posted("fi_sendmsg", c.sendmsg(fillMsg(buf, len, desc, dest, context, data, false), flags));
    }

    @Override
    public int recvmsg(long buf, long len, long desc, long src, long context, long flags) throws FabricException {
        DataPath.EndpointCalls c = calls("fi_recvmsg");
        return posted("fi_recvmsg", c.recvmsg(fillMsg(buf, len, desc, src, context, 0, false), flags));
    }

    @Override
    public int writemsg(long buf, long len, long desc, long dest, long remoteAddr, long key, long data,
            long context, long flags) throws FabricException {
        DataPath.EndpointCalls c = calls("fi_writemsg");
        return posted("fi_writemsg", c.writemsg(fillRmaMsg(buf, len, desc, dest, remoteAddr, key, data, context),
                flags));
    }

    @Override
    public int readmsg(long buf, long len, long desc, long src, long remoteAddr, long key, long context,
            long flags) throws FabricException {
        DataPath.EndpointCalls c = calls("fi_readmsg");
        return posted("fi_readmsg", c.readmsg(fillRmaMsg(buf, len, desc, src, remoteAddr, key, 0, context),
                flags));
    }

    @Override
    public synchronized void close() throws FabricException {
        if (closed) {
            return;
        }
        boundRegions.requireEmpty("fi_close(endpoint)", "registrations bound to it");
        Ops.close(ep, "endpoint", domain.provider());
        ShmNames.closed(shmName);
        closed = true;
        calls = null;
        NativeMemory.free(scratch);
        cq.users().remove(this);
        av.users().remove(this);
        domain.closed(this);
    }
}
