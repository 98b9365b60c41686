package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.ChildJvm;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process that ends while the watchdog is inside a provider call on its endpoint ends only once
 * that call has returned. A process that ends in the middle of a call leaves behind whatever the
 * call held: on shm a spinlock in the shared memory that every peer sending to the process, or
 * receiving from it, then spins on for good (docs/FABRIC.md). The application's own threads are
 * its business; the watchdog's are ofinet's. The child's one endpoint is left undriven, so the
 * watchdog steps it; the step's provider call takes 500 ms, and as soon as the call has begun the
 * child ends: through {@code System.exit}, the JVM's shutdown, or as a C host's {@code exit()} ends
 * with the JVM inside it, running no JVM shutdown hook (the library's exit handler calls
 * {@link Device#processEnding}, then the process is gone: here {@code Runtime.halt}).
 */
@Timeout(120)
class ExitDuringWatchdogStepIT {
    static final String BEGUN = "exiting while the watchdog's step is inside the provider";
    static final String RETURNED = "the provider call of the watchdog's step returned";

    @ParameterizedTest
    @ValueSource(strings = {"exit", "halt"})
    void theProcessEndsAfterTheWatchdogsProviderCallReturns(String how) throws Exception {
        try (ChildJvm child = new ChildJvm.Spec(Exiting.class).args(how).bound(Duration.ofSeconds(60)).start()) {
            assertEquals(0, child.waitFor(), child.output());
            String output = child.output();
            int begun = output.indexOf(BEGUN);
            assertTrue(begun >= 0, "the watchdog stepped the undriven endpoint: " + output);
            assertTrue(output.indexOf(RETURNED, begun) > 0,
                    "the exit waited for the watchdog's provider call to return: " + output);
        }
    }

    /**
     * {@code Exiting exit|halt}: opens an endpoint on the in-memory provider, leaves it to the
     * watchdog and ends inside its step.
     */
    public static final class Exiting {
        private Exiting() {
        }

        public static void main(String[] args) throws Exception {
            MemProvider provider = MemProvider.create();
            Device device = Device.open(provider, Layouts.mem(1, PeerFixture.FAST));
            RdmaEndpoint endpoint = device.openEndpoint();
            CountDownLatch begun = new CountDownLatch(1);
            provider.faults().atNextProgress(endpoint.railSet.dataEndpoint(0), () -> {
                begun.countDown();
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                System.out.println(RETURNED);
            });
            if (!begun.await(30, TimeUnit.SECONDS)) {
                System.out.println("the watchdog never stepped the endpoint");
                System.exit(2);
            }
            System.out.println(BEGUN);
            if (args[0].equals("halt")) {
                Device.processEnding();
                Runtime.getRuntime().halt(0);
            }
            System.exit(0);
        }
    }
}
