package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import java.lang.management.ManagementFactory;
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
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        OfiProvider ofi = new OfiProvider();
        long access = Fi.SEND | Fi.RECV | Fi.WRITE | Fi.REMOTE_WRITE;
        long bufA = NativeMemory.allocate(64);
        long bufB = NativeMemory.allocate(64);
        Fabric fabric;
        try (InfoList offers = ofi.getinfo(InfoHints.protocol().withProvider("shm"))) {
            fabric = ofi.openFabric(offers.infos().get(0));
        }
        try (fabric; Domain domain = fabric.openDomain();
                var cqA = domain.openCompletionQueue(64); var cqB = domain.openCompletionQueue(64);
                var avA = domain.openAddressVector(2); var avB = domain.openAddressVector(2);
                Endpoint a = domain.openEndpoint(cqA, avA); Endpoint b = domain.openEndpoint(cqB, avB)) {
            a.enable();
            b.enable();
            long aToB = avA.insert(b.name());
            avB.insert(a.name());
            try (MemoryRegion mrA = domain.register(bufA, 64, access, 1, Fi.HMEM_SYSTEM);
                    MemoryRegion mrB = domain.register(bufB, 64, access, 2, Fi.HMEM_SYSTEM)) {
                CompletionBatch batch = new CompletionBatch(4);
                long keyB = mrB.key();
                long[] count = new long[1];
                ByteBuffer direct = ByteBuffer.allocateDirect(64);
                long directAddress = NativeMemory.addressOf(direct);
                ThrowingRound round = () -> {
                    while (b.recv(bufB, 64, mrB.descriptor(), Fi.ADDR_UNSPEC, 2) == Endpoint.AGAIN) {
                        cqB.read(batch, 4);
                        cqA.read(batch, 4);
                    }
                    while (a.senddata(bufA, 8, mrA.descriptor(), 7, aToB, 1) == Endpoint.AGAIN) {
                        cqA.read(batch, 4);
                        cqB.read(batch, 4);
                    }
                    while (a.write(bufA, 16, mrA.descriptor(), aToB, bufB + 16, keyB, 3) == Endpoint.AGAIN) {
                        cqA.read(batch, 4);
                        cqB.read(batch, 4);
                    }
                    // The send, the write and the receive: three completions, read from both queues.
                    int done = 0;
                    while (done < 3) {
                        int n = cqA.read(batch, 4);
                        int m = cqB.read(batch, 4);
                        if (n < 0 || m < 0) {
                            throw new IllegalStateException("an error completion in a round");
                        }
                        done += n + m;
                    }
                    NativeMemory.host().copy(bufB, bufA + 32, 32);
                    if (NativeMemory.addressOf(direct) != directAddress) {
                        throw new IllegalStateException("a direct buffer's address changed");
                    }
                    count[0]++;
                };
                for (int i = 0; i < 30_000; i++) {
                    round.run(); // warm up: class loading, JIT compilation
                }
                long thread = Thread.currentThread().getId();
                long before = threads.getThreadAllocatedBytes(thread);
                int rounds = 20_000;
                for (int i = 0; i < rounds; i++) {
                    round.run();
                }
                long perRound = (threads.getThreadAllocatedBytes(thread) - before) / rounds;
                assertEquals(50_000, count[0]);
                assertTrue(perRound < 8, "the " + OfiProvider.dataPathName() + " data path allocated "
                        + perRound + " bytes per round");
            }
        } finally {
            NativeMemory.free(bufA);
            NativeMemory.free(bufB);
        }
    }

    /** A round that may throw what the provider throws. */
    private interface ThrowingRound {
        void run() throws FabricException;
    }
}
