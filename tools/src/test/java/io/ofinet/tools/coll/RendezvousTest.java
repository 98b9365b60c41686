package io.ofinet.tools.coll;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a launched run's ranks exchange their handles. */
class RendezvousTest {
    @Test
    void aLaunchersJobHasADirectoryOfItsOwn() {
        assertEquals(Optional.of("job-388956161"), Rendezvous.jobOf(Map.of("PMIX_NAMESPACE", "388956161",
                "OMPI_MCA_ess_base_jobid", "1")));
        assertEquals(Optional.of("job-42"), Rendezvous.jobOf(Map.of("OMPI_MCA_ess_base_jobid", "42")));
        assertEquals(Optional.of("job-7.3"), Rendezvous.jobOf(Map.of("SLURM_JOB_ID", "7", "SLURM_STEP_ID", "3")));
        assertEquals(Optional.of("job-prterun-host-123_1"), Rendezvous.jobOf(Map.of("PMIX_NAMESPACE",
                "prterun-host-123@1")), "a name that is a plain file name");
        assertEquals(Optional.empty(), Rendezvous.jobOf(Map.of("PMI_RANK", "0")));
    }

    @Test
    void aSecondJobGivenTheSameDirectoryNeverReadsTheFirstJobsHandles(@TempDir Path dir) throws Exception {
        Rendezvous first = new Rendezvous(dir.resolve(Rendezvous.jobOf(Map.of("PMIX_NAMESPACE", "1")).orElseThrow()),
                1, 2);
        first.publish("handle", new byte[] {1});
        Rendezvous second = new Rendezvous(dir.resolve(Rendezvous.jobOf(Map.of("PMIX_NAMESPACE", "2")).orElseThrow()),
                0, 2);
        Rendezvous secondsPeer = new Rendezvous(dir.resolve("job-2"), 1, 2);
        Thread late = new Thread(() -> {
            try {
                Thread.sleep(200);
                secondsPeer.publish("handle", new byte[] {2});
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        late.start();
        assertArrayEquals(new byte[] {2}, second.fetch(1, "handle", Duration.ofSeconds(10)));
        late.join();
        assertEquals(true, Files.exists(dir.resolve("job-1").resolve("handle.1")));
    }
}
