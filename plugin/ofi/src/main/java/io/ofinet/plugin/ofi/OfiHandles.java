package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.mr.MrHandle;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.ListenComm;
import io.ofinet.rdma.RdmaEndpoint;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Limits;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/** The plugin's opaque objects, each wrapping the protocol's. */
final class OfiHandles {
    private OfiHandles() {
    }

    /** Every handle knows the plugin instance that made it. */
    interface Owned {
        Object owner();
    }

    /** A listen communicator. */
    static final class Listen implements Handles.ListenComm, Owned {
        final Object owner;
        final ListenComm inner;
        boolean closed;

        Listen(Object owner, ListenComm inner) {
            this.owner = owner;
            this.inner = inner;
        }

        @Override
        public Object owner() {
            return owner;
        }

        @Override
        public byte[] handle() {
            return inner.handle();
        }
    }

    /**
     * What send and receive communicators share: the endpoint and a pool of request objects, made
     * when first needed up to the protocol's bound and reused after (an idle communicator holds
     * none; a busy one allocates nothing in steady state). Each request in use counts as a use of
     * the memory handles it was posted with, until {@code test} reports it or its communicator
     * closes: {@code deregMr} of a handle in use is refused.
     */
    abstract static class Comm implements Handles.Comm, Owned {
        final Object owner;
        final RdmaEndpoint endpoint;
        private final int bound;
        private PooledRequest[] all = new PooledRequest[4];
        private int created;
        /** Returned request objects, the oldest first: one is reused as late as possible. */
        private final ArrayDeque<PooledRequest> free = new ArrayDeque<>(4);
        /** The protocol's handles of the buffers being posted, and the plugin's. */
        final MrHandle[] scratch = new MrHandle[Limits.MAX_RECVS];
        final Mr[] scratchMrs = new Mr[Limits.MAX_RECVS];
        /** The distinct handles of the post under way, their uses counted ({@link #claim}). */
        private final Mr[] claimed = new Mr[Limits.MAX_RECVS];
        boolean closed;
        /** The direct buffer posted last through the ByteBuffer calls, and its address. */
        private volatile LastBuffer lastBuffer;

        Comm(Object owner, RdmaEndpoint endpoint, int bound) {
            this.owner = owner;
            this.endpoint = endpoint;
            this.bound = bound;
        }

        /** The address of {@code buffer}'s first byte; no native call when it is the buffer posted last. */
        long addressOf(java.nio.ByteBuffer buffer) {
            LastBuffer last = lastBuffer;
            if (last != null && last.holds(buffer)) {
                return last.base();
            }
            long base = NativeMemory.addressOf(buffer);
            lastBuffer = new LastBuffer(buffer, base);
            return base;
        }

        /**
         * Counts a use of each distinct handle among the {@code count} in {@link #scratchMrs} (nulls
         * allowed), before they are posted, and returns how many there are. A handle deregistered
         * meanwhile is refused and nothing stays counted; a handle with a use counted is not
         * deregistered ({@link Mr#markDeregistered}).
         */
        int claim(int count, String operation) throws NetException {
            int distinct = 0;
            for (int i = 0; i < count; i++) {
                Mr mr = scratchMrs[i];
                if (mr != null && !contains(claimed, distinct, mr)) {
                    if (!mr.use()) {
                        throw deregistered(distinct, operation);
                    }
                    claimed[distinct++] = mr;
                }
            }
            return distinct;
        }

        /** A post refused for a handle deregistered meanwhile: what was counted is taken back. */
        private NetException deregistered(int distinct, String operation) {
            unclaim(distinct);
            return new NetException(NetResult.INVALID_USAGE, operation + ": the memory handle was deregistered");
        }

        /** The request object for a post, or null (retry later) where the protocol made none: nothing counted. */
        PooledRequest wrapOrUnclaim(Request inner, int distinct, int buffers) {
            if (inner == null) {
                unclaim(distinct);
                return null;
            }
            return wrap(inner, distinct, buffers);
        }

        /** Takes back the uses {@link #claim} counted: the post did not happen. */
        void unclaim(int distinct) {
            for (int i = 0; i < distinct; i++) {
                claimed[i].unuse();
                claimed[i] = null;
            }
        }

        /**
         * A request object for {@code inner}, posted with the {@code distinct} handles {@link #claim}
         * counted; {@code buffers} is how many sizes {@code test} reports (0 for sends and flushes).
         * The protocol refuses a post beyond the bound first.
         */
        PooledRequest wrap(Request inner, int distinct, int buffers) {
            PooledRequest r = take();
            r.inner = inner;
            r.inUse = true;
            r.buffers = buffers;
            for (int i = 0; i < distinct; i++) {
                r.mrs[i] = claimed[i];
                claimed[i] = null;
            }
            r.mrCount = distinct;
            return r;
        }

        /** Request objects in use: posted and not yet reported by test. */
        int outstanding() {
            return created - free.size();
        }

        private PooledRequest take() {
            PooledRequest r = free.poll();
            if (r != null) {
                return r;
            }
            if (created == bound) {
                throw new IllegalStateException("more than " + bound + " requests outstanding: the protocol's bound");
            }
            if (created == all.length) {
                all = Arrays.copyOf(all, Math.min(bound, created * 2));
            }
            r = new PooledRequest(this);
            all[created++] = r;
            return r;
        }

        private static boolean contains(Mr[] mrs, int n, Mr mr) {
            for (int i = 0; i < n; i++) {
                if (mrs[i] == mr) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public Object owner() {
            return owner;
        }

        void release(PooledRequest r) {
            for (int i = 0; i < r.mrCount; i++) {
                r.mrs[i].unuse();
                r.mrs[i] = null;
            }
            r.mrCount = 0;
            r.inUse = false;
            r.inner = null;
            free.add(r);
        }

        /**
         * Releases its outstanding requests, which ended with its close: called once the protocol's
         * close has returned, so that their memory counts as used until nothing can touch it.
         */
        void releaseAll() {
            for (int i = 0; i < created; i++) {
                if (all[i].inUse) {
                    release(all[i]);
                }
            }
        }
    }

    /** A send communicator. */
    static final class Send extends Comm implements Handles.SendComm {
        final SendComm inner;

        Send(Object owner, SendComm inner, RdmaEndpoint endpoint) {
            super(owner, endpoint, SendComm.MAX_REQUESTS);
            this.inner = inner;
        }
    }

    /** A receive communicator. */
    static final class Recv extends Comm implements Handles.RecvComm {
        final RecvComm inner;
        /** Arguments of the ByteBuffer convenience receive, reused. */
        final long[] addresses = new long[1];
        final long[] sizes = new long[1];
        final int[] tags = new int[1];
        final Handles.MrHandle[] mhandles = new Handles.MrHandle[1];

        Recv(Object owner, RecvComm inner, RdmaEndpoint endpoint) {
            super(owner, endpoint, 2 * RecvComm.MAX_REQUESTS);
            this.inner = inner;
        }
    }

    /** A registered buffer, tied to the endpoint of the communicator it was registered for. */
    static final class Mr implements Handles.MrHandle, Owned {
        final Object owner;
        final MrHandle inner;
        final RdmaEndpoint endpoint;
        private static final int CLOSED = 1 << 30;
        /**
         * The outstanding requests posted with it and the posts under way, with {@link #CLOSED} once
         * deregistered: one word, so that a use and the deregistration cannot both succeed.
         */
        private final AtomicInteger state = new AtomicInteger();

        Mr(Object owner, MrHandle inner, RdmaEndpoint endpoint) {
            this.owner = owner;
            this.inner = inner;
            this.endpoint = endpoint;
        }

        /** Outstanding requests posted with it, and posts with it under way. */
        int uses() {
            return state.get() & ~CLOSED;
        }

        boolean closed() {
            return (state.get() & CLOSED) != 0;
        }

        /** Counts a use; false, counting nothing, once it was deregistered. */
        boolean use() {
            if ((state.getAndIncrement() & CLOSED) != 0) {
                state.decrementAndGet();
                return false;
            }
            return true;
        }

        /** A use counted by {@link #use} ended. */
        void unuse() {
            state.decrementAndGet();
        }

        /**
         * Marks it deregistered if no use is counted. Returns 0 when it did, -1 when it was
         * deregistered already, or the uses that prevent it.
         */
        int markDeregistered() {
            while (true) {
                if (state.compareAndSet(0, CLOSED)) {
                    return 0;
                }
                int now = state.get();
                if ((now & CLOSED) != 0) {
                    return -1;
                }
                if (now > 0) {
                    return now;
                }
            }
        }

        @Override
        public Object owner() {
            return owner;
        }
    }

    /**
     * A pooled request. The handle is the pooled object itself, so a request used after test
     * reported it is caught only while it waits in the pool (not in use); once reused it names the
     * new request.
     */
    static final class PooledRequest implements Handles.Request, Owned {
        final Comm comm;
        final Mr[] mrs = new Mr[Limits.MAX_RECVS];
        Request inner;
        boolean inUse;
        int mrCount;
        /** Sizes {@code test} reports: the receive's buffer count; 0 for sends and flushes. */
        int buffers;

        PooledRequest(Comm comm) {
            this.comm = comm;
        }

        @Override
        public Object owner() {
            return comm.owner;
        }
    }
}
