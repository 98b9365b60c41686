package io.ofinet.fabric.mem;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.ResourceTracker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** An address vector of the table kind: handles are indexes. */
final class MemAddressVector implements AddressVector {
    final MemDomain domain;
    final ResourceTracker users = new ResourceTracker();
    private final List<Long> table = new ArrayList<>();
    /** Inserts not removed, duplicates included, against {@link MemProvider.Config#avEntriesMax()}. */
    private int counted;
    private boolean closed;

    MemAddressVector(MemDomain domain) {
        this.domain = domain;
    }

    static byte[] encode(long address) {
        return ByteBuffer.allocate(8).putLong(address).array();
    }

    @Override
    public void requireWellFormed(byte[] address) throws FabricException {
        if (address.length != 8) {
            throw new FabricException("fi_av_insert (provider mem)", FiErrno.FI_EINVAL,
                    address.length == 0 ? "an empty address" : "an in-memory address of " + address.length
                            + " bytes; they have 8");
        }
    }

    @Override
    public long insert(byte[] address) throws FabricException {
        synchronized (domain.network) {
            requireOpen("fi_av_insert");
            requireWellFormed(address);
            int max = domain.network.config.avEntriesMax();
            if (max > 0 && counted >= max) {
                throw new FabricException("fi_av_insert (provider " + domain.info().provider() + ")", FiErrno.FI_ENOMEM,
                        "the address vector holds " + counted + " entries, its limit");
            }
            counted++;
            // Like libfabric's util AV: an address inserted again keeps its handle.
            long a = ByteBuffer.wrap(address).getLong();
            int known = table.indexOf(a);
            if (known >= 0) {
                return known;
            }
            table.add(a);
            return table.size() - 1;
        }
    }

    /** The handle of network address {@code address} (the first inserted), or FI_ADDR_NOTAVAIL. */
    long handleOf(long address) {
        int i = table.indexOf(address);
        return i < 0 ? io.ofinet.fabric.Fi.ADDR_NOTAVAIL : i;
    }

    @Override
    public void remove(long fiAddr) throws FabricException {
        synchronized (domain.network) {
            requireOpen("fi_av_remove");
            check(fiAddr, "fi_av_remove");
            table.set((int) fiAddr, 0L);
            counted--;
        }
    }

    @Override
    public byte[] lookup(long fiAddr) throws FabricException {
        synchronized (domain.network) {
            requireOpen("fi_av_lookup");
            check(fiAddr, "fi_av_lookup");
            return encode(table.get((int) fiAddr));
        }
    }

    private void check(long fiAddr, String call) throws FabricException {
        if (fiAddr < 0 || fiAddr >= table.size() || table.get((int) fiAddr) == 0) {
            throw new FabricException(call + " (provider mem)", FiErrno.FI_EINVAL, "no address " + fiAddr);
        }
    }

    /** The network address of a handle, or 0 when there is none. */
    long resolve(long fiAddr) {
        return fiAddr < 0 || fiAddr >= table.size() ? 0 : table.get((int) fiAddr);
    }

    @Override
    public void close() throws FabricException {
        synchronized (domain.network) {
            if (!closed) {
                users.requireEmpty("fi_close(av)", "endpoints bound to it");
                closed = true;
                domain.closed(this);
            }
        }
    }

    private void requireOpen(String call) {
        if (closed) {
            throw new IllegalStateException(call + ": the address vector is closed");
        }
    }

    boolean isClosed() {
        synchronized (domain.network) {
            return closed;
        }
    }
}
