package io.ofinet.plugin.ofi;

import io.ofinet.mr.MrHandle;
import io.ofinet.plugin.Handles;
import io.ofinet.rdma.ListenComm;
import io.ofinet.rdma.RdmaEndpoint;
import io.ofinet.rdma.RecvComm;
import io.ofinet.rdma.Request;
import io.ofinet.rdma.SendComm;
import java.util.ArrayDeque;

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

    /** What send and receive communicators share: the endpoint and a FIFO pool of requests. */
    abstract static class Comm implements Handles.Comm, Owned {
        final Object owner;
        final RdmaEndpoint endpoint;
        final ArrayDeque<PooledRequest> pool;
        final MrHandle[] scratch = new MrHandle[io.ofinet.rdma.wire.Limits.MAX_RECVS];
        boolean closed;

        Comm(Object owner, RdmaEndpoint endpoint, int requests) {
            this.owner = owner;
            this.endpoint = endpoint;
            this.pool = new ArrayDeque<>(requests);
            for (int i = 0; i < requests; i++) {
                pool.add(new PooledRequest(this));
            }
        }

        /** A request object for {@code inner}; the pool is sized to the protocol's capacity. */
        PooledRequest wrap(Request inner) {
            PooledRequest r = pool.poll();
            r.inner = inner;
            r.inUse = true;
            return r;
        }

        @Override
        public Object owner() {
            return owner;
        }

        void release(PooledRequest r) {
            r.inUse = false;
            r.inner = null;
            pool.add(r);
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
        boolean closed;

        Mr(Object owner, MrHandle inner, RdmaEndpoint endpoint) {
            this.owner = owner;
            this.inner = inner;
            this.endpoint = endpoint;
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
        Request inner;
        boolean inUse;

        PooledRequest(Comm comm) {
            this.comm = comm;
        }

        @Override
        public Object owner() {
            return comm.owner;
        }
    }
}
