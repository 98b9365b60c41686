package io.ofinet.nccl;

import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetPlugin;

/**
 * NCCL's memory handles: {@code regMr}, {@code deregMr}, and the lookup the data path makes of each
 * handle it is passed. Each handle is a value of the door's registration table ({@link HandleTable});
 * a deregistration the plugin refuses while requests use the memory waits in {@link Deregistrations}.
 */
final class Registrations {
    private final NetPlugin plugin;
    private final HandleTable<CommEntry.Registration> table = new HandleTable<>(0x4D);
    private final Deregistrations deregistrations;

    Registrations(NetPlugin plugin, Deregistrations deregistrations) {
        this.plugin = plugin;
        this.deregistrations = deregistrations;
    }

    int regMr(NcclDoor door, long comm, long data, long size, int type, long mhandleOut) {
        try {
            CommEntry c = door.dataComm(comm, "regMr");
            Failures.out(mhandleOut, "regMr", "mhandle");
            Handles.MrHandle mr = plugin.regMr(c.comm(), data, size, memoryType(type));
            CMemory.putLong(mhandleOut, table.add(new CommEntry.Registration(mr, c)));
            return NcclDoor.SUCCESS;
        } catch (Throwable t) {
            return door.failed("regMr", t);
        }
    }

    private static MemoryType memoryType(int type) throws DoorException {
        for (MemoryType t : MemoryType.values()) {
            if (t.bit() == type) {
                return t;
            }
        }
        throw new DoorException(NcclDoor.INTERNAL, "regMr: memory type " + type
                + " is none of NCCL_PTR_HOST, _CUDA, _DMABUF");
    }

    /**
     * Deregisters through the communicator the memory was registered for: NCCL passes that one, but
     * may pass it after closing it, so only the handle's kind is checked. Memory that outstanding
     * requests use is released once they end ({@link Deregistrations}).
     */
    int deregMr(NcclDoor door, long comm, long mhandle) {
        try {
            if (!door.isComm(comm)) {
                throw new DoorException(NcclDoor.INTERNAL, "deregMr: " + Failures.describe(comm, "communicator"));
            }
            // Taken out of the table in one step, so that of two threads deregistering one handle only
            // one deregisters it; and tried once, whatever its result: a plugin that failed to
            // deregister has given the handle up.
            CommEntry.Registration r = table.remove(mhandle);
            if (r == null) {
                throw new DoorException(NcclDoor.INTERNAL, "deregMr: " + Failures.describe(mhandle, "memory handle"));
            }
            deregistrations.deregister(r);
            return NcclDoor.SUCCESS;
        } catch (Throwable t) {
            return door.failed("deregMr", t);
        }
    }

    /** The plugin's memory handle for a C memory handle; null for NULL. */
    Handles.MrHandle mr(long mhandle, String operation) throws DoorException {
        if (mhandle == 0) {
            return null;
        }
        CommEntry.Registration r = table.get(mhandle);
        if (r == null) {
            throw new DoorException(NcclDoor.INTERNAL, operation + ": " + Failures.describe(mhandle, "memory handle"));
        }
        return r.mr();
    }

    /** Memory handles C holds now. */
    int live() {
        return table.live();
    }
}
