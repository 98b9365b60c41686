package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.rdma.rail.ProcessCheck;
import io.ofinet.rdma.wire.ProcessIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Telling an ended process from a running or stopped one, in /proc, with real processes. */
@Timeout(60)
class ProcessCheckTest {

    @Test
    void thisProcessKnowsItselfAndRuns() {
        ProcessIdentity self = ProcessCheck.SELF;
        assertNotEquals(ProcessIdentity.NONE, self);
        assertEquals(ProcessHandle.current().pid(), self.pid());
        assertTrue(self.sameHostAs(new ProcessIdentity(self.host(), 1, 0)));
        assertNull(ProcessCheck.ended(self));
    }

    @Test
    void aProcessThatExitedOrWasKilledHasEndedAndAStoppedOneHasNot() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            ProcessIdentity id = identity(sleeper.pid());
            assertNull(ProcessCheck.ended(id), "running");
            signal("-STOP", sleeper.pid());
            awaitState(sleeper.pid(), 'T');
            assertNull(ProcessCheck.ended(id), "stopped is not ended");
            signal("-CONT", sleeper.pid());
            sleeper.destroyForcibly();
            assertTrue(sleeper.waitFor(10, TimeUnit.SECONDS));
            String ended = ProcessCheck.ended(id);
            assertTrue(ended != null && ended.startsWith("process " + sleeper.pid() + " has ended"), ended);
        } finally {
            sleeper.destroyForcibly();
        }
        // Ends when its input does: after its identity was read, however late the test thread runs.
        Process quick = new ProcessBuilder("sh", "-c", "read line").start();
        ProcessIdentity id = identity(quick.pid());
        quick.getOutputStream().close();
        assertTrue(quick.waitFor(10, TimeUnit.SECONDS));
        assertTrue(ProcessCheck.ended(id) != null, "exited");
    }

    @Test
    void aPidThatNowNamesALaterProcessHasEnded() throws Exception {
        ProcessIdentity self = ProcessCheck.SELF;
        ProcessIdentity earlier = new ProcessIdentity(self.host(), self.pid(), self.startTicks() - 1);
        assertEquals("process " + self.pid() + " has ended (the pid now names a later process)",
                ProcessCheck.ended(earlier));
    }

    @Test
    void fieldsAreCountedPastACommandNameWithSpacesAndParentheses(@TempDir Path dir) throws Exception {
        // /proc/PID/stat names the command in parentheses, as it is: fields are counted after the last ')'.
        Path odd = Files.copy(Path.of("/bin/sleep"), dir.resolve("a) 1 2 (b"));
        assertTrue(odd.toFile().setExecutable(true));
        Process sleeper = new ProcessBuilder(odd.toString(), "30").start();
        try {
            ProcessIdentity id = identity(sleeper.pid());
            assertNull(ProcessCheck.ended(id), "running");
            assertEquals("process " + sleeper.pid() + " has ended (the pid now names a later process)",
                    ProcessCheck.ended(new ProcessIdentity(id.host(), id.pid(), id.startTicks() + 1)));
        } finally {
            sleeper.destroyForcibly();
        }
    }

    /** A check runs every 250 ms per communicator, from the application's calls: it reads into a buffer it keeps. */
    @Test
    void aCheckAllocatesOnlyTheFilesHandle() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        ProcessIdentity self = ProcessCheck.SELF;
        for (int i = 0; i < 20_000; i++) {
            assertNull(ProcessCheck.ended(self)); // compiled
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1000; i++) {
            ProcessCheck.ended(self);
        }
        long perCheck = (threads.getCurrentThreadAllocatedBytes() - before) / 1000;
        assertTrue(perCheck < 1024, perCheck + " bytes per check");
    }

    private static ProcessIdentity identity(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new ProcessIdentity(ProcessCheck.SELF.host(), (int) pid, Long.parseLong(fields[19]));
    }

    private static void signal(String signal, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", signal, Long.toString(pid)).start().waitFor());
    }

    private static void awaitState(long pid, char state) throws Exception {
        for (int i = 0; i < 500; i++) {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            if (stat.charAt(stat.lastIndexOf(')') + 2) == state) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("process " + pid + " never reached state " + state);
    }
}
