package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class NativesAheadTest {
    /**
     * The JDK classes named are there on the build's JDK: a JDK that renames one fails here, where
     * the bridge would only start libfabric's load later (NativesAhead's javadoc).
     */
    @Test
    void theJdksFfmClassesAreThere() {
        assertTrue(NativesAhead.resolve(), "every class of " + NativesAhead.CLASSES);
    }

    /** A class this JDK lacks makes the bridge fall back to the load after its first stub, and throws nothing. */
    @Test
    void aMissingClassSaysNoAndThrowsNothing() {
        assertFalse(NativesAhead.resolve(List.of("jdk.internal.foreign.abi.NativeEntryPoint",
                "jdk.internal.foreign.abi.NoSuchLinker")));
    }
}
