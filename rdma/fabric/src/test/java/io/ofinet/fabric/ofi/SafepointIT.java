package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A data-path call that waits (as libfabric 1.17's shm does, spinning on a lock a stopped peer
 * holds) must not hold off the JVM's safepoints: its collections, and its exit at SIGTERM. On FFM
 * the posts of such a provider are linked as ordinary calls ({@link DataPaths#waitsOnPeers}); the
 * others stay critical, which does hold them off. An endpoint whose every post is libc's {@code
 * poll(ep, 0, len)} stands for one that waits {@code len} ms: a thread waits in it while this one
 * asks for a collection, which needs every thread at a safepoint.
 */
@Timeout(60)
class SafepointIT {
    private static final int WAIT_MS = 3000;

    @Test
    void aCollectionDoesNotWaitForACallOfAProviderThatWaitsOnPeers() throws Exception {
        assumeTrue(OfiProvider.dataPathName().equals("ffm"), "JNA's calls always leave Java's thread state");
        assertTrue(DataPaths.waitsOnPeers("shm"));
        assertFalse(DataPaths.waitsOnPeers("tcp;ofi_rxm"));
        long ordinary = collectionMillisDuringAWaitingCall(true);
        long critical = collectionMillisDuringAWaitingCall(false);
        assertTrue(ordinary < WAIT_MS / 2, "a collection waited " + ordinary + " ms for an ordinary call");
        assertTrue(critical >= WAIT_MS / 2, "a collection waited only " + critical + " ms for a critical call:"
                + " this test no longer sees the difference");
    }

    /** How long a collection takes while another thread waits {@link #WAIT_MS} in a post. */
    private static long collectionMillisDuringAWaitingCall(boolean waitsOnPeers) throws Exception {
        long poll = Pointer.nativeValue(NativeLibrary.getInstance("c").getFunction("poll"));
        long table = NativeMemory.allocate(256);
        long ep = NativeMemory.allocate(256);
        try {
            for (int offset = 0; offset < 256; offset += 8) {
                DataPaths.current().putLong(table + offset, poll);
                DataPaths.current().putLong(ep + offset, 0);
            }
            DataPaths.current().putLong(ep + NativeOffsets.EP_MSG, table);
            DataPaths.current().putLong(ep + NativeOffsets.EP_RMA, table);
            DataPath.EndpointCalls calls = DataPaths.current().endpoint(ep, waitsOnPeers);
            // Once without waiting: the waiter's call then starts at once, well within the sleep below,
            // however slowly a loaded machine runs a call's first time.
            calls.send(0, 0, 0, 0, 0);
            CountDownLatch calling = new CountDownLatch(1);
            Thread waiter = new Thread(() -> {
                calling.countDown();
                calls.send(0, WAIT_MS, 0, 0, 0); // poll(ep, 0 fds, WAIT_MS)
            }, "waiting post");
            waiter.start();
            calling.await();
            Thread.sleep(300);
            long start = System.nanoTime();
            System.gc();
            long millis = (System.nanoTime() - start) / 1_000_000;
            waiter.join();
            return millis;
        } finally {
            NativeMemory.free(ep);
            NativeMemory.free(table);
        }
    }
}
