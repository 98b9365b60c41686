package io.ofinet.fabric.ofi;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.ofinet.fabric.AddressFormat;
import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.fabric.ResourceTracker;
import java.lang.ref.Reference;

/** A libfabric address vector. */
final class OfiAddressVector implements AddressVector {
    /** At least this many bytes are handed to {@code fi_av_insert}, the name's and zeros: a handle's limit. */
    private static final int MIN_SCRATCH = 128;
    private final OfiDomain domain;
    private final long av;
    private final ResourceTracker users = new ResourceTracker();
    private boolean closed;
    /** Entries inserted and not removed, for {@link NativeUsage}. */
    private int entries;

    OfiAddressVector(OfiDomain domain, long av) {
        this.domain = domain;
        this.av = av;
    }

    /** Endpoints bound to it; it cannot close before them. */
    ResourceTracker users() {
        return users;
    }

    OfiDomain domain() {
        return domain;
    }

    long fid() {
        return av;
    }

    /** Whether it was closed: an endpoint is not bound to it then. */
    synchronized boolean isClosed() {
        return closed;
    }

    private Function op(int offset, String call) throws FabricException {
        if (closed) {
            throw new IllegalStateException(call + ": the address vector is closed");
        }
        return Ops.fn(Ops.getLong(av + NativeOffsets.AV_OPS), offset, call, domain.provider());
    }

    @Override
    public void requireWellFormed(byte[] address) throws FabricException {
        String wrong = AddressFormat.malformed(domain.info().addressFormat(), address);
        if (wrong != null) {
            throw new FabricException("fi_av_insert (provider " + domain.provider() + ", not called)",
                    FiErrno.FI_EINVAL, wrong);
        }
    }

    @Override
    public synchronized long insert(byte[] address) throws FabricException {
        requireWellFormed(address);
        // Zeros past the name: a string ends there, and a format this binding does not check reads
        // zeros rather than what follows a short name.
        Memory addr = Ops.scratch(Math.max(MIN_SCRATCH, address.length + 1L));
        addr.write(0, address, 0, address.length);
        Memory out = Ops.scratch(8);
        int rc;
        try {
            rc = op(NativeOffsets.OPS_AV_INSERT, "fi_av_insert").invokeInt(new Object[] {av,
                Pointer.nativeValue(addr), 1L, Pointer.nativeValue(out), 0L, 0L});
        } finally {
            Reference.reachabilityFence(addr);
        }
        if (rc != 1) {
            throw Ops.error("fi_av_insert", domain.provider(), rc < 0 ? rc : -FiErrno.FI_EINVAL);
        }
        entries++;
        NativeUsage.addressesInserted(1);
        return out.getLong(0);
    }

    @Override
    public synchronized void remove(long fiAddr) throws FabricException {
        Memory addr = Ops.scratch(8);
        addr.setLong(0, fiAddr);
        try {
            Ops.check("fi_av_remove", domain.provider(), op(NativeOffsets.OPS_AV_REMOVE, "fi_av_remove")
                    .invokeInt(new Object[] {av, Pointer.nativeValue(addr), 1L, 0L}));
            entries--;
            NativeUsage.addressesInserted(-1);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    @Override
    public synchronized byte[] lookup(long fiAddr) throws FabricException {
        long size = 128;
        for (int attempt = 0; attempt < 2; attempt++) {
            Memory addr = Ops.scratch(size);
            Memory len = Ops.scratch(8);
            len.setLong(0, size);
            int rc = op(NativeOffsets.OPS_AV_LOOKUP, "fi_av_lookup").invokeInt(new Object[] {av, fiAddr,
                Pointer.nativeValue(addr), Pointer.nativeValue(len)});
            long actual = len.getLong(0);
            if (rc == 0 && actual <= size) {
                return addr.getByteArray(0, (int) actual);
            }
            Reference.reachabilityFence(addr); // written by the call on every path
            if (rc < 0 && rc != -FiErrno.FI_ETOOSMALL) {
                throw Ops.error("fi_av_lookup", domain.provider(), rc);
            }
            size = actual;
        }
        throw Ops.error("fi_av_lookup", domain.provider(), -FiErrno.FI_ETOOSMALL);
    }

    /** On shm, a peer whose region's name is gone from /dev/shm ({@link ShmNames#missing}). */
    @Override
    public String unreachable(long fiAddr) {
        if (closed || !new ProviderPolicy(domain.provider()).namesEndpointsInDevShm()) {
            return null;
        }
        try {
            return ShmNames.missing(lookup(fiAddr));
        } catch (FabricException e) {
            return null; // not known here: the posts' own bound decides
        }
    }

    @Override
    public synchronized void close() throws FabricException {
        if (closed) {
            return;
        }
        users.requireEmpty("fi_close(av)", "endpoints bound to it");
        Ops.close(av, "av", domain.provider());
        closed = true;
        NativeUsage.addressesInserted(-entries);
        entries = 0;
        domain.closed(this);
    }
}
