package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Registrations while the garbage collector runs often ({@link RegistrationChurn}, in a child JVM
 * so that a crash is a failure with its report rather than the end of the test run). The binding
 * once gave libfabric the address of an {@code fi_mr_attr} and its iovec in scratch memory that
 * compiled code let go before {@code fi_mr_regattr} had read it: a collection then freed it under
 * the call, and shm copied the iovec from a pointer the allocator had written there (SIGSEGV in
 * libc's memmove under {@code OfiDomain.register}), or read a length of garbage ({@code
 * FI_ENOMEM}). That failed 3 of 8 runs of 15 s here, after 30,000 to 120,000 registrations; a
 * run of this test would have caught it about one time in three, and its result is only as sure.
 */
class RegistrationUnderGcIT {

    @TempDir
    Path dir;

    @Test
    void scratchMemoryOutlivesTheNativeCallsThatReadIt() throws Exception {
        try (ChildJvm jvm = new ChildJvm.Spec(RegistrationChurn.class).args("shm", "shm", "2", "20")
                .bound(Duration.ofSeconds(90)).directory(dir).start()) {
            int status = jvm.waitFor();
            assertEquals(0, status, jvm.output());
            assertTrue(jvm.output().matches("(?s).*registrations: [1-9][0-9]{3,}.*"), jvm.output());
        }
    }
}
