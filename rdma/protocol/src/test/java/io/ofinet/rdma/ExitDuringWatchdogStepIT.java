package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.fabric.testing.TestTime;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process that ends while the watchdog is inside a provider call on its endpoint ends only once
 * that call has returned, or {@link Shutdown#WATCHDOG_EXIT_WAIT_MS} later. A process that ends in
 * the middle of a call leaves behind whatever the call held: on shm a spinlock in the shared memory
 * that every peer sending to the process, or receiving from it, then spins on for good
 * (docs/FABRIC.md). The application's own threads are its business; the watchdog's are ofinet's.
 *
 * <p>The child's one endpoint is left undriven, so the watchdog steps it; the step's provider call
 * begins, and the child ends: through {@code System.exit}, the JVM's shutdown, or as a C host's
 * {@code exit()} ends with the JVM inside it, running no JVM shutdown hook (the library's exit
 * handler calls {@link Device#processEnding}, then the process is gone: here {@code Runtime.halt}).
 * The call returns a second after the end began, so the process outlives it only if the end
 * waited (or took a second to end by itself); one that never returns in time (30 s) holds the end
 * up for the wait's bound only, and is warned of.
 */
@Timeout(120)
class ExitDuringWatchdogStepIT {
    static final String BEGUN = "ending while the provider call of a step is in progress, on ";
    static final String RETURNED = "the provider call of the watchdog's step returned";
    static final String HALTING = "processEnding returned; halting";
    static final String BEGUN_AT = "begun at ";
    static final String WARNING = "has not ended after " + Shutdown.WATCHDOG_EXIT_WAIT_MS + " ms";

    @ParameterizedTest
    @ValueSource(strings = {"exit", "halt"})
    void theProcessEndsAfterTheWatchdogsProviderCallReturns(String how) throws Exception {
        String output = run(how);
        int begun = output.indexOf(BEGUN + "ofinet-watchdog");
        assertTrue(begun >= 0, "the watchdog stepped the undriven endpoint: " + output);
        int returned = output.indexOf(RETURNED, begun);
        assertTrue(returned > 0, "the end waited for the watchdog's provider call to return: " + output);
        if (how.equals("halt")) {
            assertTrue(output.indexOf(HALTING, begun) > returned, "processEnding returned after the call: " + output);
        }
        assertFalse(output.contains(WARNING), "no warning of a look that did not end: " + output);
    }

    @Test
    void aProviderCallThatDoesNotReturnHoldsTheEndOnlyForTheWaitsBound() throws Exception {
        String output = run("stuck");
        long ended = System.currentTimeMillis();
        assertTrue(output.contains(BEGUN + "ofinet-watchdog"), "the watchdog stepped the undriven endpoint: " + output);
        assertFalse(output.contains(RETURNED), "the end waited for a call of 30 s: " + output);
        assertTrue(output.contains(WARNING), "the end warned of the look that did not end: " + output);
        int at = output.indexOf(BEGUN_AT) + BEGUN_AT.length();
        long begun = Long.parseLong(output.substring(at, output.indexOf('\n', at)).strip());
        assertTrue(ended - begun < TestTime.ms(10_000), "the end took " + (ended - begun) + " ms: " + output);
    }

    private static String run(String how) throws Exception {
        try (ChildJvm child = new ChildJvm.Spec(Exiting.class).args(how).bound(Duration.ofSeconds(60)).start()) {
            assertEquals(0, child.waitFor(), child.output());
            return child.output();
        }
    }

    /**
     * {@code Exiting exit|halt|stuck}: opens an endpoint on the in-memory provider, leaves it to the
     * watchdog and ends inside its step's provider call.
     */
    public static final class Exiting {
        private Exiting() {
        }

        public static void main(String[] args) throws Exception {
            MemProvider provider = MemProvider.create();
            Device device = Device.open(provider, Layouts.mem(1, PeerFixture.FAST));
            RdmaEndpoint endpoint = device.openEndpoint();
            CountDownLatch begun = new CountDownLatch(1);
            String[] thread = new String[1];
            boolean stuck = args[0].equals("stuck");
            provider.faults().atNextProgress(endpoint.railSet.dataEndpoint(0), () -> {
                thread[0] = Thread.currentThread().getName();
                begun.countDown();
                try {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (!stuck && !Shutdown.inProgress() && System.nanoTime() < deadline) {
                        Thread.sleep(1);
                    }
                    Thread.sleep(stuck ? 30_000 : 1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                System.out.println(RETURNED);
            });
            if (!begun.await(30, TimeUnit.SECONDS)) {
                System.out.println("the watchdog never stepped the endpoint");
                System.exit(2);
            }
            System.out.println(BEGUN + thread[0]);
            System.out.println(BEGUN_AT + System.currentTimeMillis());
            if (args[0].equals("halt")) {
                Device.processEnding();
                System.out.println(HALTING);
                Runtime.getRuntime().halt(0);
            }
            System.exit(0);
        }
    }
}
