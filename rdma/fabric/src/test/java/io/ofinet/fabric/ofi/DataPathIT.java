package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.testing.Allocations;
import io.ofinet.fabric.testing.EndpointPair;
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
        try (Shm shm = new Shm(); EndpointPair pair = new EndpointPair(shm.domain, 1)) {
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
        try (Shm shm = new Shm(); EndpointPair first = new EndpointPair(shm.domain, 1);
                EndpointPair second = new EndpointPair(shm.domain, 3)) {
            EndpointPair[] pairs = {first, second};
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                java.util.List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    EndpointPair pair = pairs[t];
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
}
