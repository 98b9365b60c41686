package io.ofinet.nccl;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.DeviceProperties;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.ofi.NcclResults;
import io.ofinet.rdma.Device;
import io.ofinet.rdma.comm.Timeline;
import java.util.Arrays;

/**
 * NCCL's net plugin operations over a {@link NetPlugin}: each takes the addresses C passed, returns an
 * {@code ncclResult_t} value and writes its results where NCCL asked. Handles C holds are values of
 * this door's tables ({@link HandleTable}, {@link RequestSlots}); a NULL, stale or foreign one is
 * {@code ncclInternalError} (NCCL's core misused the interface), and nothing is thrown out.
 * Failures are logged once, at the call that fails, through {@link Log}.
 */
final class NcclDoor {
    /** Where the door's log lines go: NCCL's logger through C. */
    interface Log {
        void warn(String message);

        void info(String message);

        /** Below INFO: NCCL's TRACE. */
        default void trace(String message) {
            info(message);
        }
    }

    static final int SUCCESS = NcclResults.SUCCESS;
    static final int INTERNAL = NcclResults.INTERNAL_ERROR;
    static final int HANDLE_BYTES = NetPlugin.HANDLE_MAX_BYTES;

    private final NetPlugin plugin;
    private final Log log;
    private final HandleTable<CommEntry> comms = new HandleTable<>(0x43);
    private final HandleTable<CommEntry.Context> contexts = new HandleTable<>(0x58);
    private final Requests requests;
    private final Registrations registrations;
    private final Deregistrations deregistrations;
    private final WarmUpControl warmUp;
    private boolean initialized;
    private long[][] deviceStrings = new long[0][];

    NcclDoor(NetPlugin plugin, Log log) {
        this(plugin, log, (nccls, l) -> null);
    }

    /** A door that starts the data path's warm-up ({@link WarmUp}) {@code warmUps} makes, at its first init. */
    NcclDoor(NetPlugin plugin, Log log, WarmUp.Factory warmUps) {
        this.warmUp = new WarmUpControl(warmUps, log);
        this.plugin = plugin;
        this.log = log;
        this.deregistrations = new Deregistrations(plugin, log);
        this.registrations = new Registrations(plugin, deregistrations);
        this.requests = new Requests(plugin, comms, deregistrations);
    }

    /** The result for a failure, logged. */
    int failed(String operation, Throwable t) {
        return Failures.code(operation, t, log);
    }

    synchronized int init(long ctxOut, long commId, long config, boolean ncclLogger) {
        try {
            Failures.out(ctxOut, "init", "ctx");
            if (ncclLogger) {
                NcclLogging.toNccl(log);
            }
            if (!initialized) {
                long begun = System.nanoTime();
                plugin.init();
                initialized = true;
                long tenths = (System.nanoTime() - begun) / 100_000; // of a ms
                log.info("ofinet initialised: " + plugin.devices() + " device(s), Java " + Runtime.version()
                        + "; the plugin's init (libfabric loaded, the layout read or discovered) in " + tenths / 10
                        + "." + tenths % 10 + " ms");
                warmUp.start(plugin);
            }
            int trafficClass = config == 0 ? ConnectConfig.UNDEFINED : CMemory.getInt(config);
            CMemory.putLong(ctxOut, contexts.add(new CommEntry.Context(commId, new ConnectConfig(trafficClass))));
            return SUCCESS;
        } catch (Throwable t) {
            return failed("init", t);
        }
    }

    int finalizeContext(long ctx) {
        try {
            if (contexts.remove(ctx) == null) {
                throw new DoorException(INTERNAL, "finalize: " + Failures.describe(ctx, "context"));
            }
        } catch (Throwable t) {
            return failed("finalize", t);
        }
        try {
            // Diagnostics only: a JVM without java.management, or a logger that fails, changes nothing.
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long allocated = threads instanceof com.sun.management.ThreadMXBean t ? t.getCurrentThreadAllocatedBytes()
                    : -1;
            log.info("finalize: " + contexts.live() + " context(s) left; " + Thread.activeCount() + " JVM threads, "
                    + threads.getThreadCount() + " live; this thread allocated " + allocated + " bytes");
        } catch (Throwable ignored) {
            // The context is gone: finalize succeeded.
        }
        return SUCCESS;
    }

    int devices(long ndevOut) {
        try {
            Failures.out(ndevOut, "devices", "ndev");
            CMemory.putInt(ndevOut, plugin.devices());
            return SUCCESS;
        } catch (Throwable t) {
            return failed("devices", t);
        }
    }

    synchronized int getProperties(int dev, long propsOut) {
        try {
            Failures.out(propsOut, "getProperties", "props");
            DeviceProperties p = plugin.getProperties(dev);
            if (dev >= deviceStrings.length) {
                deviceStrings = Arrays.copyOf(deviceStrings, dev + 1);
            }
            if (deviceStrings[dev] == null) {
                deviceStrings[dev] = new long[] {PropertiesV12.cString(p.name()), PropertiesV12.cString(p.pciPath())};
            }
            PropertiesV12.write(propsOut, dev, p, deviceStrings[dev][0], deviceStrings[dev][1]);
            return SUCCESS;
        } catch (Throwable t) {
            return failed("getProperties", t);
        }
    }

    private CommEntry.Context context(long ctx, String operation) throws DoorException {
        CommEntry.Context c = contexts.get(ctx);
        if (c == null) {
            throw new DoorException(INTERNAL, operation + ": " + Failures.describe(ctx, "context"));
        }
        return c;
    }

    /** The live communicator {@code handle} of {@code type}. */
    CommEntry comm(long handle, int type, String operation) throws DoorException {
        CommEntry c = comms.get(handle);
        if (c == null || c.type != type) {
            throw new DoorException(INTERNAL, operation + ": " + (c == null ? Failures.describe(handle,
                    CommEntry.name(type)) : "a " + CommEntry.name(c.type) + " where a " + CommEntry.name(type)
                    + " is required"));
        }
        return c;
    }

    int listen(long ctx, int dev, long handleOut, long listenCommOut) {
        try {
            warmUp.standAside();
            context(ctx, "listen");
            Failures.out(handleOut, "listen", "handle");
            Failures.out(listenCommOut, "listen", "listenComm");
            Handles.ListenComm listen = plugin.listen(dev);
            CMemory.putBytes(handleOut, listen.handle(), HANDLE_BYTES);
            CMemory.putLong(listenCommOut, comms.add(self -> CommEntry.listen(listen, self)));
            return SUCCESS;
        } catch (Throwable t) {
            return failed("listen", t);
        }
    }

    int connect(long ctx, int dev, long handle, long sendCommOut) {
        try {
            warmUp.standAside();
            CommEntry.Context context = context(ctx, "connect");
            Failures.out(handle, "connect", "handle");
            Failures.out(sendCommOut, "connect", "sendComm");
            Handles.SendComm send = plugin.connect(dev, CMemory.getBytes(handle, HANDLE_BYTES), context.config());
            CMemory.putLong(sendCommOut, send == null ? 0 : comms.add(self -> CommEntry.send(send, self)));
            return SUCCESS;
        } catch (Throwable t) {
            return failed("connect", t);
        }
    }

    int accept(long listenComm, long recvCommOut) {
        try {
            CommEntry listen = comm(listenComm, CommEntry.LISTEN, "accept");
            Failures.out(recvCommOut, "accept", "recvComm");
            Handles.RecvComm recv = plugin.accept(listen.listen);
            CMemory.putLong(recvCommOut, recv == null ? 0 : comms.add(self -> CommEntry.recv(recv, self)));
            return SUCCESS;
        } catch (Throwable t) {
            return failed("accept", t);
        }
    }

    /** The live send or receive communicator {@code handle}. */
    CommEntry dataComm(long handle, String operation) throws DoorException {
        CommEntry c = comms.get(handle);
        if (c == null || c.type == CommEntry.LISTEN) {
            throw new DoorException(INTERNAL, operation + ": " + (c == null ? Failures.describe(handle,
                    "communicator") : "a listen communicator where a send or receive communicator is required"));
        }
        return c;
    }

    /** Whether {@code handle} is a communicator handle of this door's, live or not. */
    boolean isComm(long handle) {
        return comms.isKind(handle);
    }

    int regMr(long comm, long data, long size, int type, long mhandleOut) {
        return registrations.regMr(this, comm, data, size, type, mhandleOut);
    }

    int deregMr(long comm, long mhandle) {
        return registrations.deregMr(this, comm, mhandle);
    }

    /** The plugin's memory handle for a C memory handle; null for NULL. */
    Handles.MrHandle mr(long mhandle, String operation) throws DoorException {
        return registrations.mr(mhandle, operation);
    }

    int isend(long comm, long data, long size, int tag, long mhandle, long requestOut) {
        return requests.isend(this, comm, data, size, tag, mhandle, requestOut);
    }

    int irecv(long comm, int n, long data, long sizes, long tags, long mhandles, long requestOut) {
        return requests.irecv(this, comm, n, data, sizes, tags, mhandles, requestOut);
    }

    int iflush(long comm, int n, long data, long sizes, long mhandles, long requestOut) {
        return requests.iflush(this, comm, n, data, sizes, mhandles, requestOut);
    }

    int test(long request, long doneOut, long sizesOut) {
        return requests.test(this, request, doneOut, sizesOut);
    }

    int close(long comm, int type) {
        String operation = type == CommEntry.SEND ? "closeSend" : type == CommEntry.RECV ? "closeRecv" : "closeListen";
        try {
            CommEntry c;
            synchronized (comms) {
                c = comm(comm, type, operation);
                comms.remove(comm);
            }
            try {
                // Closed already where a deregMr of memory its requests used closed it (an abort).
                c.closeIn(plugin);
            } finally {
                // A close that failed ended the communicator's requests too: what waited for them goes.
                deregistrations.retry();
            }
            return SUCCESS;
        } catch (Throwable t) {
            return failed(operation, t);
        }
    }

    /** Communicators, registrations and contexts C holds now, and deregistrations waiting for their requests. */
    int[] live() {
        return new int[] {comms.live(), registrations.live(), contexts.live(), deregistrations.pending()};
    }

    /** The process is ending: see {@link WarmUpControl#endAtExit}. */
    void endWarmUp() {
        warmUp.endAtExit();
    }

    /**
     * The host process is exiting without the JVM's shutdown: what needs no peer is cleaned. Each
     * step runs whatever became of the one before; the first failure is reported.
     */
    int atExit() {
        Throwable first = null;
        // An interrupt is kept for the caller once every step ran: a file write would not survive it.
        boolean interrupted = Thread.interrupted();
        Runnable[] steps = {this::endWarmUp, Timeline::writeOut, Device::processEnding, OfiProvider::processEnding};
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (Throwable t) {
                if (first == null) {
                    first = t;
                } else {
                    first.addSuppressed(t);
                }
            }
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return first == null ? SUCCESS : failed("exit", first);
    }
}
