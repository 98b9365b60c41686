package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.testing.Allocations;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which data path is active: FFM on JDK 22+ (from the multi-release jar), JNA on Java 17 or when
 * {@code ofinet.dataPath=jna} asks for it. Integration tests run against the packaged jar, so this
 * also proves the multi-release layout. Both paths call without allocating.
 */
@Timeout(120)
class DataPathIT {

    @Test
    void theJdkChoosesTheDataPath() {
        boolean forcedJna = "jna".equals(System.getProperty(DataPaths.PROPERTY));
        String expected = Runtime.version().feature() >= 22 && !forcedJna ? "ffm" : "jna";
        assertEquals(expected, OfiProvider.dataPathName(), "on Java " + Runtime.version());
    }

    @Test
    void jnasDispatcherIsReachedDirectlyOnTheClassPath() {
        assertTrue(JnaInvoker.direct(), "JNA's Native.invokeLong is reachable: the JNA path does not box");
    }

    @Test
    void theModuleComesFromAMultiReleaseJarWhenFfmIsActive() {
        String location = OfiProvider.class.getProtectionDomain().getCodeSource().getLocation().toString();
        if (OfiProvider.dataPathName().equals("ffm")) {
            assertTrue(location.endsWith(".jar"), "FFM is loaded from the jar's versions/22: " + location);
        }
    }

    @Test
    void theActivePathFindsADirectBuffersFirstByteWhereJnaDoes() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        buffer.position(100).limit(300);
        ByteBuffer slice = buffer.slice();
        slice.position(7);
        for (ByteBuffer b : new ByteBuffer[] {buffer, slice, buffer.duplicate()}) {
            long jna = Pointer.nativeValue(Native.getDirectBufferPointer(b));
            assertEquals(jna, DataPaths.current().addressOf(b), OfiProvider.dataPathName() + ", position "
                    + b.position());
            assertEquals(jna, NativeMemory.addressOf(b));
        }
        assertEquals(NativeMemory.addressOf(buffer) + 100, NativeMemory.addressOf(slice));
    }

    /**
     * Rounds of {@code fi_recv}, {@code fi_senddata}, {@code fi_write} and {@code fi_cq_read}
     * between two shm endpoints, copies of host memory and the addresses of direct buffers,
     * counted with the JVM's per-thread allocation counter: the data path allocates nothing, on
     * FFM and on JNA alike.
     */
    @Test
    void postsCompletionReadsAndCopiesAllocateNothing() throws Exception {
        try (Shm shm = new Shm(); Pair pair = new Pair(shm.domain, 1)) {
            long[] count = new long[1];
            ByteBuffer direct = ByteBuffer.allocateDirect(64);
            long directAddress = NativeMemory.addressOf(direct);
            long perRound = Allocations.perRun(30_000, 20_000, () -> {
                pair.sendAndReceive(8, 7);
                while (pair.a.write(pair.bufA, 16, pair.mrA.descriptor(), pair.aToB, pair.bufB + 16, pair.keyB, 3)
                        == Endpoint.AGAIN) {
                    pair.progress();
                }
                while (pair.cqA.read(pair.batch, 4) == 0) {
                    pair.cqB.read(pair.batch, 4); // the write completes while its target is read too
                }
                NativeMemory.host().copy(pair.bufB, pair.bufA + 32, 32);
                if (NativeMemory.addressOf(direct) != directAddress) {
                    throw new IllegalStateException("a direct buffer's address changed");
                }
                count[0]++;
            });
            assertTrue(count[0] >= 50_000, "rounds run: " + count[0]); // and on while the JIT compilers work
            assertTrue(perRound < 8, "the " + OfiProvider.dataPathName() + " data path allocated "
                    + perRound + " bytes per round");
        }
    }

    /**
     * Two threads, each with its own pair of endpoints, post and read at once: each call's
     * arguments stay its own (JNA's are set in per-thread arrays), so every message arrives with
     * its own length, immediate data and bytes.
     */
    @Test
    void threadsCallingAtOnceKeepTheirOwnArguments() throws Exception {
        int rounds = 20_000;
        try (Shm shm = new Shm(); Pair first = new Pair(shm.domain, 1);
                Pair second = new Pair(shm.domain, 3)) {
            Pair[] pairs = {first, second};
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                java.util.List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    Pair pair = pairs[t];
                    long length = 8 + 8 * t;
                    long base = 1_000_000L * (t + 1);
                    results.add(pool.submit(() -> {
                        for (int r = 0; r < rounds; r++) {
                            NativeMemory.putLong(pair.bufA, base + r);
                            pair.sendAndReceive(length, base + r);
                            if (pair.receivedLength != length || pair.receivedData != base + r
                                    || NativeMemory.getLong(pair.bufB) != base + r) {
                                throw new AssertionError("round " + r + " of the thread sending " + length
                                        + " bytes with data " + (base + r) + " received " + pair.receivedLength
                                        + " bytes, data " + pair.receivedData + ", first word "
                                        + NativeMemory.getLong(pair.bufB));
                            }
                        }
                        return rounds;
                    }));
                }
                for (java.util.concurrent.Future<Integer> result : results) {
                    assertEquals(rounds, result.get(60, java.util.concurrent.TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** A fabric and domain of the shm provider. */
    private static final class Shm implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;

        Shm() throws FabricException {
            OfiProvider ofi = new OfiProvider();
            try (InfoList offers = ofi.getinfo(InfoHints.protocol().withProvider("shm"))) {
                fabric = ofi.openFabric(offers.infos().get(0));
            }
            domain = fabric.openDomain();
        }

        @Override
        public void close() throws FabricException {
            domain.close();
            fabric.close();
        }
    }

    /** Two endpoints of one domain, a sending to b, each with its queue and a registered 64-byte buffer. */
    private static final class Pair implements AutoCloseable {
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final AddressVector avA;
        final AddressVector avB;
        final Endpoint a;
        final Endpoint b;
        final long bufA = NativeMemory.allocate(64);
        final long bufB = NativeMemory.allocate(64);
        final MemoryRegion mrA;
        final MemoryRegion mrB;
        final long aToB;
        final long keyB;
        final CompletionBatch batch = new CompletionBatch(4);
        long receivedLength;
        long receivedData;

        /** Keys {@code firstKey} and the next for its two buffers: keys are unique in a domain. */
        Pair(Domain domain, long firstKey) throws FabricException {
            long access = Fi.SEND | Fi.RECV | Fi.WRITE | Fi.REMOTE_WRITE;
            cqA = domain.openCompletionQueue(64);
            cqB = domain.openCompletionQueue(64);
            avA = domain.openAddressVector(2);
            avB = domain.openAddressVector(2);
            a = domain.openEndpoint(cqA, avA);
            b = domain.openEndpoint(cqB, avB);
            a.enable();
            b.enable();
            aToB = avA.insert(b.name());
            avB.insert(a.name());
            mrA = domain.register(bufA, 64, access, firstKey, Fi.HMEM_SYSTEM);
            mrB = domain.register(bufB, 64, access, firstKey + 1, Fi.HMEM_SYSTEM);
            keyB = mrB.key();
        }

        /** Reads both queues once (shm moves data while its queues are read). */
        void progress() throws FabricException {
            cqA.read(batch, 4);
            cqB.read(batch, 4);
        }

        /** b posts a receive, a sends {@code length} bytes with {@code data}; both complete. */
        void sendAndReceive(long length, long data) throws FabricException {
            while (b.recv(bufB, 64, mrB.descriptor(), Fi.ADDR_UNSPEC, 2) == Endpoint.AGAIN) {
                progress();
            }
            while (a.senddata(bufA, length, mrA.descriptor(), data, aToB, 1) == Endpoint.AGAIN) {
                progress();
            }
            boolean sent = false;
            boolean received = false;
            while (!sent || !received) {
                int n = cqA.read(batch, 4);
                if (n < 0) {
                    throw new IllegalStateException("an error completion of a send");
                }
                sent |= n > 0;
                int m = cqB.read(batch, 4);
                if (m < 0) {
                    throw new IllegalStateException("an error completion of a receive");
                }
                if (m > 0) {
                    received = true;
                    receivedLength = batch.len(0);
                    receivedData = batch.data(0);
                }
            }
        }

        @Override
        public void close() throws FabricException {
            mrA.close();
            mrB.close();
            b.close();
            a.close();
            avB.close();
            avA.close();
            cqB.close();
            cqA.close();
            NativeMemory.free(bufA);
            NativeMemory.free(bufB);
        }
    }
}
