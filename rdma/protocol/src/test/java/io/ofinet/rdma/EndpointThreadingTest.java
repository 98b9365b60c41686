package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Fi;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ownership rule of {@link RdmaEndpoint}: communicators that share an endpoint driven from
 * different threads, registrations from another thread meanwhile, and the lock a device's
 * endpoints share when the provider grants less than FI_THREAD_SAFE.
 */
@Timeout(120)
class EndpointThreadingTest {
    private static final int THREADS = 4;
    private static final int MESSAGES = 3000;
    private static final int WINDOW = 4;
    private static final int SLOT = 4096;

    @Test
    void endpointsOfAThreadSafeDomainHaveTheirOwnLock() throws Exception {
        try (Device device = Device.open(MemProvider.create(), Layouts.mem(2, ""))) {
            RdmaEndpoint one = device.openEndpoint();
            RdmaEndpoint two = device.openEndpoint();
            assertFalse(one.sharesOwnershipWith(two));
        }
    }

    @Test
    void endpointsOfADomainGrantedLessShareTheDevicesLock() throws Exception {
        MemProvider provider = MemProvider.builder().threading(Fi.THREAD_DOMAIN).build();
        try (Device device = Device.open(provider, Layouts.mem(2, ""))) {
            RdmaEndpoint one = device.openEndpoint();
            RdmaEndpoint two = device.openEndpoint();
            assertTrue(one.sharesOwnershipWith(two));
        }
    }

    /**
     * Four threads, each driving its own send/receive pair; all sends share endpoint {@code a}, all
     * receives endpoint {@code b}. A fifth thread registers and deregisters buffers for both
     * endpoints and connects, accepts and closes further communicators. Every byte is checked.
     */
    @Test
    void communicatorsSharingAnEndpointMoveVerifiedDataFromDifferentThreads() throws Exception {
        MemProvider provider = MemProvider.builder().outOfOrderCompletions(7).build();
        try (Device deviceA = Device.open(provider, Layouts.mem(2, "\"minStripeSize\": 1024, \"eagerMaxSize\": 1024"));
                Device deviceB = Device.open(provider, Layouts.mem(2, "\"minStripeSize\": 1024, \"eagerMaxSize\": 1024"))) {
            RdmaEndpoint a = deviceA.openEndpoint();
            RdmaEndpoint b = deviceB.openEndpoint();
            ListenComm listen = b.listen();
            SendComm[] sends = new SendComm[THREADS];
            RecvComm[] recvs = new RecvComm[THREADS];
            for (int i = 0; i < THREADS; i++) {
                ConnectedPair pair = ConnectionTest.establish(a, b, listen);
                sends[i] = pair.send();
                recvs[i] = pair.recv();
            }
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                int index = i;
                threads.add(new Thread(() -> {
                    try {
                        stream(a, b, sends[index], recvs[index], index);
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "worker-" + i));
            }
            Thread churn = new Thread(() -> {
                try {
                    churn(a, b, listen, threads);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "churn");
            threads.forEach(Thread::start);
            churn.start();
            for (Thread t : threads) {
                t.join();
            }
            churn.join();
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError(failures.size() + " threads failed");
                failures.forEach(error::addSuppressed);
                throw error;
            }
        }
    }

    private static void stream(RdmaEndpoint a, RdmaEndpoint b, SendComm send, RecvComm recv, int index)
            throws Exception {
        try (HostBuffer src = new HostBuffer((long) WINDOW * SLOT); HostBuffer dst = new HostBuffer((long) WINDOW * SLOT)) {
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            Request[] sent = new Request[WINDOW];
            Request[] received = new Request[WINDOW];
            long[] sizes = new long[1];
            int posted = 0;
            int done = 0;
            int recvPosted = 0;
            int recvDone = 0;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (done < MESSAGES || recvDone < MESSAGES) {
                if (posted < MESSAGES && posted - done < WINDOW) {
                    int slot = posted % WINDOW;
                    int size = size(index, posted);
                    for (int k = 0; k < size; k++) {
                        io.ofinet.fabric.ofi.NativeMemory.putByte(src.address + (long) slot * SLOT + k,
                                (byte) (posted * 31 + k + index));
                    }
                    Request r = send.isend(src.address + (long) slot * SLOT, size, 1, srcMr);
                    if (r != null) {
                        sent[slot] = r;
                        posted++;
                    }
                }
                if (recvPosted < MESSAGES && recvPosted - recvDone < WINDOW) {
                    int slot = recvPosted % WINDOW;
                    Request r = recv.irecv(1, new long[] {dst.address + (long) slot * SLOT}, new long[] {SLOT},
                            new int[] {1}, new MrHandle[] {dstMr});
                    if (r != null) {
                        received[slot] = r;
                        recvPosted++;
                    }
                }
                if (done < posted && sent[done % WINDOW].test(null)) {
                    done++;
                }
                if (recvDone < recvPosted && received[recvDone % WINDOW].test(sizes)) {
                    int slot = recvDone % WINDOW;
                    int size = size(index, recvDone);
                    assertEquals(size, sizes[0], "thread " + index + " message " + recvDone);
                    for (int k = 0; k < size; k++) {
                        byte got = io.ofinet.fabric.ofi.NativeMemory.getByte(dst.address + (long) slot * SLOT + k);
                        if (got != (byte) (recvDone * 31 + k + index)) {
                            throw new AssertionError("thread " + index + " message " + recvDone + " byte " + k);
                        }
                    }
                    recvDone++;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("thread " + index + ": sent " + done + ", received " + recvDone);
                }
            }
            a.deregisterUserBuffer(srcMr);
            b.deregisterUserBuffer(dstMr);
        }
    }

    private static int size(int index, int k) {
        return (k * 977 + index * 131) % SLOT;
    }

    private static void churn(RdmaEndpoint a, RdmaEndpoint b, ListenComm listen, List<Thread> workers)
            throws Exception {
        try (HostBuffer scratch = new HostBuffer(1 << 16)) {
            // At least one round, however soon the workers end.
            do {
                for (int i = 0; i < 10; i++) {
                    a.deregisterUserBuffer(a.registerUserBuffer(scratch.address + 64L * i, 4096 + 512L * i));
                    b.deregisterUserBuffer(b.registerUserBuffer(scratch.address + 64L * i, 8192));
                }
                ConnectedPair pair = ConnectionTest.establish(a, b, listen);
                pair.recv().close();
                pair.send().close();
            } while (workers.stream().anyMatch(Thread::isAlive));
        }
    }
}
