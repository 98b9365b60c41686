package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The bookkeeping of shm endpoint names and their removal at the JVM's end ({@link ShmNames}). */
class ShmNamesTest {

    private static byte[] address(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        byte[] withNul = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, withNul, 0, bytes.length);
        return withNul;
    }

    @Test
    void theRegionNameIsTheAddressWithoutItsSchemeUpToItsNul() {
        assertEquals("4242:0:1", ShmNames.regionName(address("fi_shm://4242:0:1")));
        assertEquals("4242:0:1", ShmNames.regionName(address("4242:0:1")));
        byte[] padded = "fi_shm://4242:0:1\0\0garbage".getBytes(StandardCharsets.US_ASCII);
        assertEquals("4242:0:1", ShmNames.regionName(padded));
    }

    @Test
    void anAddressThatNamesNoPlainFileGivesNoName() {
        assertNull(ShmNames.regionName(address("fi_shm://")));
        assertNull(ShmNames.regionName(new byte[] {0}));
        assertNull(ShmNames.regionName(address("fi_shm://../etc/passwd")));
        assertNull(ShmNames.regionName(address("/etc/passwd")));
        assertNull(ShmNames.regionName(address("fi_shm://..")));
    }

    @Test
    void theNamesOfOpenEndpointsAreRemovedAndThoseOfClosedOnesKept() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm");
        String open = "ofinet-test-" + ProcessHandle.current().pid() + ":open";
        String closed = "ofinet-test-" + ProcessHandle.current().pid() + ":closed";
        Files.writeString(shm.resolve(open), "x");
        Files.writeString(shm.resolve(closed), "x");
        try {
            assertEquals(open, ShmNames.opened(address("fi_shm://" + open)));
            assertEquals(closed, ShmNames.opened(address("fi_shm://" + closed)));
            ShmNames.closed(closed);

            ShmNames.removeOpen();

            assertFalse(Files.exists(shm.resolve(open)), "the open endpoint's name is removed");
            assertTrue(Files.exists(shm.resolve(closed)), "a closed endpoint's name is not ours to remove");
        } finally {
            ShmNames.closed(open);
            Files.deleteIfExists(shm.resolve(open));
            Files.deleteIfExists(shm.resolve(closed));
        }
    }

    @Test
    void beforeEnablingOnlyARegionUnderThisPidsNameThatNoOpenEndpointHasIsRemoved() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm");
        long pid = ProcessHandle.current().pid();
        String stale = pid + ":ofinet-test:stale";
        String open = pid + ":ofinet-test:open";
        String others = (pid + 1) + ":ofinet-test:others";
        for (String name : new String[] {stale, open, others}) {
            Files.writeString(shm.resolve(name), "x");
        }
        try {
            ShmNames.opened(address("fi_shm://" + open));

            assertTrue(ShmNames.removeStale(address("fi_shm://" + stale)));
            assertFalse(ShmNames.removeStale(address("fi_shm://" + open)), "an open endpoint's region");
            assertFalse(ShmNames.removeStale(address("fi_shm://" + others)), "another pid's region");
            assertFalse(ShmNames.removeStale(address("fi_shm://" + stale)), "nothing left to remove");

            assertFalse(Files.exists(shm.resolve(stale)));
            assertTrue(Files.exists(shm.resolve(open)));
            assertTrue(Files.exists(shm.resolve(others)));
        } finally {
            ShmNames.closed(open);
            for (String name : new String[] {stale, open, others}) {
                Files.deleteIfExists(shm.resolve(name));
            }
        }
    }

    @Test
    void aPeerIsUnreachableOnlyWhenItsNameIsGoneAndItIsNotOfThisProcess() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm");
        long pid = ProcessHandle.current().pid();
        String present = (pid + 1) + ":ofinet-test:present";
        String gone = (pid + 1) + ":ofinet-test:gone";
        String own = pid + ":ofinet-test:own";
        Files.writeString(shm.resolve(present), "x");
        Files.deleteIfExists(shm.resolve(gone));
        try {
            ShmNames.opened(address("fi_shm://" + own));

            assertNull(ShmNames.missing(address("fi_shm://" + present)));
            assertEquals("its shm region /dev/shm/" + gone + " is gone (removed by a cleaner, or by its process on"
                    + " the way out), and shm cannot reach a peer whose region it cannot map",
                    ShmNames.missing(address("fi_shm://" + gone)));
            assertNull(ShmNames.missing(address("fi_shm://" + own)), "shm finds an endpoint of this process without"
                    + " its name");
            assertNull(ShmNames.missing(address("fi_shm://../etc")), "no region name: nothing to say");
        } finally {
            ShmNames.closed(own);
            Files.deleteIfExists(shm.resolve(present));
        }
    }
}
