package io.ofinet.nccl;

import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import java.util.Arrays;

/**
 * The data path through the door: {@code isend}, {@code irecv}, {@code iflush} and {@code test}.
 * Arguments are read from C into the communicator's scratch arrays and results written back; nothing
 * is allocated unless a call fails. {@code test} drives the plugin's progress, as NCCL only polls.
 */
final class Requests {
    private final NetPlugin plugin;
    private final HandleTable<CommEntry> comms;
    private final Deregistrations deregistrations;

    Requests(NetPlugin plugin, HandleTable<CommEntry> comms, Deregistrations deregistrations) {
        this.plugin = plugin;
        this.comms = comms;
        this.deregistrations = deregistrations;
    }

    int isend(NcclDoor door, long comm, long data, long size, int tag, long mhandle, long requestOut) {
        try {
            CommEntry c = door.comm(comm, CommEntry.SEND, "isend");
            c.driver = Thread.currentThread();
            Failures.out(requestOut, "isend", "request");
            checkSize(size, "isend");
            Handles.Request r = plugin.isend(c.send, data, size, tag, door.mr(mhandle, "isend"));
            CMemory.putLong(requestOut, r == null ? 0 : c.requests.add(r, RequestSlots.SEND, size));
            return NcclDoor.SUCCESS;
        } catch (Throwable t) {
            return door.failed("isend", t);
        }
    }

    private static void checkSize(long size, String operation) throws DoorException {
        if (size < 0 || size > PropertiesV12.MAX_BYTES) {
            throw new DoorException(NcclDoor.INTERNAL, operation + ": " + Long.toUnsignedString(size)
                    + " bytes; maxP2pBytes is " + PropertiesV12.MAX_BYTES);
        }
    }

    private static void checkCount(int n, String operation) throws DoorException {
        if (n < 1 || n > CommEntry.MAX_RECVS) {
            throw new DoorException(NcclDoor.INTERNAL, operation + ": " + n + " buffers; maxRecvs is "
                    + CommEntry.MAX_RECVS);
        }
    }

    /**
     * The receive communicator of an irecv or iflush, with its checks, and its n buffers' addresses
     * and memory handles read into the communicator's scratch arrays.
     */
    private static CommEntry receiveBuffers(NcclDoor door, long comm, int n, long data, long sizes, long mhandles,
            long requestOut, String operation) throws DoorException {
        CommEntry c = door.comm(comm, CommEntry.RECV, operation);
        c.driver = Thread.currentThread();
        Failures.out(requestOut, operation, "request");
        checkCount(n, operation);
        Failures.out(sizes, operation, "sizes");
        Failures.out(data, operation, "data");
        try {
            for (int i = 0; i < n; i++) {
                c.addresses[i] = CMemory.getLong(data + 8L * i);
                c.mrs[i] = mhandles == 0 ? null : door.mr(CMemory.getLong(mhandles + 8L * i), operation);
            }
        } catch (DoorException e) {
            Arrays.fill(c.mrs, null);
            throw e;
        }
        return c;
    }

    int irecv(NcclDoor door, long comm, int n, long data, long sizes, long tags, long mhandles, long requestOut) {
        CommEntry c = null;
        try {
            Failures.out(tags, "irecv", "tags");
            c = receiveBuffers(door, comm, n, data, sizes, mhandles, requestOut, "irecv");
            for (int i = 0; i < n; i++) {
                c.sizes[i] = CMemory.getLong(sizes + 8L * i);
                checkSize(c.sizes[i], "irecv");
                c.tags[i] = CMemory.getInt(tags + 4L * i);
            }
            // Always written: NCCL may have preset *request to NCCL_NET_OPTIONAL_RECV_COMPLETION.
            Handles.Request r = plugin.irecv(c.recv, n, c.addresses, c.sizes, c.tags, c.mrs);
            CMemory.putLong(requestOut, r == null ? 0 : c.requests.add(r, RequestSlots.RECV, n));
            return NcclDoor.SUCCESS;
        } catch (Throwable t) {
            return door.failed("irecv", t);
        } finally {
            if (c != null) {
                Arrays.fill(c.mrs, null);
            }
        }
    }

    /** A flush that cannot be posted yet is kept in its slot and posted by test: never a NULL request. */
    int iflush(NcclDoor door, long comm, int n, long data, long sizes, long mhandles, long requestOut) {
        CommEntry c = null;
        try {
            c = receiveBuffers(door, comm, n, data, sizes, mhandles, requestOut, "iflush");
            for (int i = 0; i < n; i++) {
                c.sizes[i] = CMemory.getInt(sizes + 4L * i);
            }
            Handles.Request r = plugin.iflush(c.recv, n, c.addresses, c.sizes, c.mrs);
            long handle = c.requests.add(r, RequestSlots.FLUSH, n);
            if (r == null) {
                c.requests.deferFlush(c.requests.slot(handle), n, c.addresses, c.sizes, c.mrs);
            }
            CMemory.putLong(requestOut, handle);
            return NcclDoor.SUCCESS;
        } catch (Throwable t) {
            return door.failed("iflush", t);
        } finally {
            if (c != null) {
                Arrays.fill(c.mrs, null);
            }
        }
    }

    int test(NcclDoor door, long request, long doneOut, long sizesOut) {
        CommEntry c = null;
        int slot = -1;
        try {
            Failures.out(doneOut, "test", "done");
            int index = RequestSlots.commIndex(request);
            c = index < 0 ? null : comms.atIndex(index);
            slot = c == null || c.requests == null ? -1 : c.requests.slot(request);
            if (slot < 0) {
                throw new DoorException(NcclDoor.INTERNAL, "test: " + Failures.describe(request, "request"));
            }
            c.driver = Thread.currentThread();
            RequestSlots slots = c.requests;
            Handles.Request r = slots.request(slot);
            if (r == null) {
                r = plugin.iflush(c.recv, (int) slots.amount(slot), slots.flushAddresses(slot),
                        slots.flushSizes(slot), slots.flushMrs(slot));
                if (r == null) {
                    CMemory.putInt(doneOut, 0);
                    return NcclDoor.SUCCESS;
                }
                slots.posted(slot, r);
            }
            if (!plugin.test(r, c.received)) {
                CMemory.putInt(doneOut, 0);
                return NcclDoor.SUCCESS;
            }
            int type = slots.type(slot);
            long amount = slots.amount(slot);
            slots.remove(slot);
            slot = -1;
            deregistrations.retry();
            CMemory.putInt(doneOut, 1);
            if (sizesOut != 0 && type == RequestSlots.SEND) {
                CMemory.putInt(sizesOut, (int) amount);
            } else if (sizesOut != 0 && type == RequestSlots.RECV) {
                for (int i = 0; i < amount; i++) {
                    CMemory.putInt(sizesOut + 4L * i, (int) c.received[i]);
                }
            }
            return NcclDoor.SUCCESS;
        } catch (Throwable t) {
            if (slot >= 0 && t instanceof NetException) {
                // NCCL tests a request that failed no more: its slot goes. One the plugin keeps (its
                // endpoint's progress failed under it) ends at its communicator's close.
                c.requests.remove(slot);
                deregistrations.retry();
            }
            // Anything else is a bug of the plugin's, whose request may live on: the slot stays,
            // and a test again answers the same, not "stale handle".
            return door.failed("test", t);
        }
    }
}
