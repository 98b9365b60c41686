package io.ofinet.fabric.mem;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.ResourceTracker;

/** An in-memory RDM endpoint. All state is guarded by the network's monitor. */
final class MemEndpoint implements Endpoint {
    final MemDomain domain;
    private final MemCompletionQueue cq;
    private final MemAddressVector av;
    private final MemNetwork network;
    private final long address;
    final ResourceTracker boundRegions = new ResourceTracker();
    private final MemReceives receives = new MemReceives();
    private final MemDelivery delivery;
    int outstanding;
    /**
     * Faults armed by {@link MemFaults}: posts that fail, operations that complete in error, undelivered
     * or delivered.
     */
    final MemFault failPosts = new MemFault();
    final MemFault failCompletions = new MemFault();
    final MemFault failAfterDelivery = new MemFault();
    final MemHeldCancels heldCancels = new MemHeldCancels();
    /** Run by the endpoint's next progress, inside the provider ({@link MemFaults#atNextProgress}); then null. */
    Runnable atNextProgress;
    /** Reads of its completion queue that fail ({@link MemFaults#failNextQueueReads}). */
    final MemFault failReads = new MemFault();
    private boolean enabled;
    private boolean dead;
    private boolean closed;

    MemEndpoint(MemDomain domain, MemCompletionQueue cq, MemAddressVector av) {
        this.domain = domain;
        this.cq = cq;
        this.av = av;
        this.network = domain.network;
        this.address = network.register(this);
        this.delivery = new MemDelivery(this, cq, av, receives);
        cq.users.add(this);
        cq.endpoints.add(this);
        av.users.add(this);
    }

    @Override
    public FabricInfo info() {
        return domain.info();
    }

    @Override
    public void enable() {
        synchronized (network) {
            if (closed) {
                throw new IllegalStateException("endpoint is closed");
            }
            enabled = true;
        }
    }

    @Override
    public byte[] name() {
        return MemAddressVector.encode(address);
    }

    /** This endpoint's address on the network. */
    long address() {
        return address;
    }

    // ---- posting ----

    private FabricException error(String call, int errno, String why) {
        return new FabricException(call + " (provider mem)", errno, why);
    }

    private void requireOpen(String call) throws FabricException {
        if (closed || !enabled) {
            throw error(call, FiErrno.FI_EOPBADSTATE, closed ? "the endpoint is closed" : "the endpoint is not enabled");
        }
    }

    /**
     * Checks common to every post of an operation of {@code kind} (null: a receive); returns AGAIN
     * (also an injected fault) or 1 to go on.
     */
    private int admit(String call, MemOp.Kind kind, long buf, long len, long desc, boolean tagged)
            throws FabricException {
        requireOpen(call);
        boolean transmit = kind != null;
        if (failPosts.take(kind)) {
            if (failPosts.errno() == FiErrno.FI_EAGAIN) {
                return AGAIN;
            }
            throw error(call, failPosts.errno(), "injected failure");
        }
        checkDescriptor(call, buf, len, desc);
        if (transmit && (outstanding >= info().txSize() || !cq.hasRoom())) {
            return AGAIN;
        }
        if (!transmit && (receives.posted(tagged) >= info().rxSize())) {
            return AGAIN;
        }
        return 1;
    }

    /** The local descriptor must name a live registration of this domain, usable on this endpoint. */
    private void checkDescriptor(String call, long buf, long len, long desc) throws FabricException {
        if (desc == 0) {
            if ((info().mrMode() & Fi.MR_LOCAL) != 0 && len > 0) {
                throw error(call, FiErrno.FI_EINVAL, "FI_MR_LOCAL: a local buffer needs the descriptor of its registration");
            }
            return;
        }
        MemMemoryRegion mr = domain.byDescriptor(desc);
        if (mr == null) {
            throw error(call, FiErrno.FI_EINVAL, "descriptor " + desc + " names no registration of this domain");
        }
        if (!mr.usableOn(this)) {
            throw error(call, FiErrno.FI_EINVAL, mr.boundTo == null || !mr.enabled
                    ? "the local registration is not bound and enabled (FI_MR_ENDPOINT)"
                    : "the local descriptor is of a registration bound to another endpoint");
        }
        if (!mr.covers(buf, len)) {
            throw error(call, FiErrno.FI_EINVAL, "the local buffer is outside its registration");
        }
    }

    private int post(String call, MemOp.Kind kind, long buf, long len, long desc, long dest, long data, boolean hasData,
            long remoteAddr, long key, long context, boolean tagged) throws FabricException {
        synchronized (network) {
            network.record(call);
            int admitted = admit(call, kind, buf, len, desc, tagged);
            if (admitted != 1) {
                return admitted;
            }
            outstanding++;
            if (dead) {
                return POSTED; // a vanished endpoint's operations never complete
            }
            if (failCompletions.take(kind)) {
                complete(this, context, MemOp.flags(kind, tagged), 0, failCompletions.errno(),
                        "injected completion error");
                return POSTED;
            }
            MemEndpoint target = network.lookup(av.resolve(dest));
            if (target == null || target.dead) {
                complete(this, context, MemOp.flags(kind, tagged), 0, FiErrno.FI_EHOSTUNREACH,
                        "the peer is unreachable");
                return POSTED;
            }
            int errnoAfter = failAfterDelivery.take(kind) ? failAfterDelivery.errno() : 0;
            target.delivery.add(new MemOp(kind, this, context, buf, len, data, hasData, remoteAddr, key, tagged,
                    errnoAfter));
            return POSTED;
        }
    }

    @Override
    public int send(long buf, long len, long desc, long dest, long context) throws FabricException {
        return post("fi_send", MemOp.Kind.SEND, buf, len, desc, dest, 0, false, 0, 0, context, false);
    }

    @Override
    public int senddata(long buf, long len, long desc, long data, long dest, long context) throws FabricException {
        return post("fi_senddata", MemOp.Kind.SEND, buf, len, desc, dest, data, true, 0, 0, context, false);
    }

    @Override
    public int sendmsg(long buf, long len, long desc, long dest, long data, long context, long flags)
            throws FabricException {
        return post("fi_sendmsg", MemOp.Kind.SEND, buf, len, desc, dest, data, (flags & Fi.REMOTE_CQ_DATA) != 0, 0, 0,
                context, false);
    }

    @Override
    public int write(long buf, long len, long desc, long dest, long remoteAddr, long key, long context)
            throws FabricException {
        return post("fi_write", MemOp.Kind.WRITE, buf, len, desc, dest, 0, false, remoteAddr, key, context, false);
    }

    @Override
    public int writedata(long buf, long len, long desc, long data, long dest, long remoteAddr, long key,
            long context) throws FabricException {
        return post("fi_writedata", MemOp.Kind.WRITE, buf, len, desc, dest, data, true, remoteAddr, key, context,
                false);
    }

    @Override
    public int writemsg(long buf, long len, long desc, long dest, long remoteAddr, long key, long data,
            long context, long flags) throws FabricException {
        return post("fi_writemsg", MemOp.Kind.WRITE, buf, len, desc, dest, data, (flags & Fi.REMOTE_CQ_DATA) != 0,
                remoteAddr, key, context, false);
    }

    @Override
    public int read(long buf, long len, long desc, long src, long remoteAddr, long key, long context)
            throws FabricException {
        return post("fi_read", MemOp.Kind.READ, buf, len, desc, src, 0, false, remoteAddr, key, context, false);
    }

    @Override
    public int readmsg(long buf, long len, long desc, long src, long remoteAddr, long key, long context,
            long flags) throws FabricException {
        return read(buf, len, desc, src, remoteAddr, key, context);
    }

    @Override
    public int recv(long buf, long len, long desc, long src, long context) throws FabricException {
        synchronized (network) {
            network.record("fi_recv");
            int admitted = admit("fi_recv", null, buf, len, desc, false);
            if (admitted != 1) {
                return admitted;
            }
            receives.post(new MemReceives.Recv(buf, len, context, false, 0, 0));
            return POSTED;
        }
    }

    @Override
    public int recvmsg(long buf, long len, long desc, long src, long context, long flags) throws FabricException {
        return recv(buf, len, desc, src, context);
    }

    @Override
    public int trecv(long buf, long len, long desc, long src, long tag, long ignore, long context)
            throws FabricException {
        synchronized (network) {
            network.record("fi_trecv");
            int admitted = admit("fi_trecv", null, buf, len, desc, true);
            if (admitted != 1) {
                return admitted;
            }
            receives.post(new MemReceives.Recv(buf, len, context, true, tag, ignore));
            return POSTED;
        }
    }

    @Override
    public int tsenddata(long buf, long len, long desc, long data, long dest, long tag, long context)
            throws FabricException {
        return post("fi_tsenddata", MemOp.Kind.SEND, buf, len, desc, dest, data, true, 0, tag, context, true);
    }

    /**
     * Cancels a posted receive not yet matched: it completes with FI_ECANCELED (late, when {@link
     * MemFaults#holdCancels} says so); nothing else is found.
     */
    @Override
    public int cancel(long context) throws FabricException {
        synchronized (network) {
            network.record("fi_cancel");
            requireOpen("fi_cancel");
            MemReceives.Recv r = receives.cancel(context);
            if (r == null) {
                return NOT_FOUND;
            }
            long flags = Fi.RECV | (r.tagged() ? Fi.TAGGED : Fi.MSG);
            if (!heldCancels.hold(context, flags)) {
                complete(this, context, flags, 0, FiErrno.FI_ECANCELED, "cancelled");
            }
            return POSTED;
        }
    }

    // ---- delivery, when this endpoint's completion queue is read ----

    /** Completes an operation of {@code initiator}'s, unless that endpoint is closed or gone. */
    static void complete(MemEndpoint initiator, long context, long flags, long len, int errno, String message) {
        if (!initiator.closed && !initiator.dead) {
            initiator.cq.add(new MemCompletionQueue.Entry(context, flags, len, 0, 0, errno, message, initiator,
                    Fi.ADDR_NOTAVAIL));
        }
    }

    void progress() {
        if (dead || closed || !enabled) {
            return;
        }
        Runnable fault = atNextProgress;
        if (fault != null) {
            atNextProgress = null;
            fault.run();
        }
        heldCancels.release(this);
        delivery.deliver();
    }

    /** The endpoint is gone: what was on its way to it fails at its initiators. */
    void vanish(int errno) {
        if (dead) {
            return;
        }
        dead = true;
        network.unregister(address);
        delivery.failAll(errno);
        receives.clear();
    }

    @Override
    public void close() throws FabricException {
        synchronized (network) {
            if (closed) {
                return;
            }
            boundRegions.requireEmpty("fi_close(endpoint)", "registrations bound to it");
            vanish(FiErrno.FI_ECONNREFUSED);
            closed = true;
            cq.users.remove(this);
            cq.endpoints.remove(this);
            av.users.remove(this);
            domain.closed(this);
        }
    }
}
