package io.ofinet.fabric.testing;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM that crashes in native code leaves its crash report where {@link ChildJvm#output()}
 * finds it, even when its working directory is a test's temporary one, deleted after the test: the
 * output then ends with the report's summary and the crashing thread's stacks.
 */
@Timeout(120)
class ChildJvmCrashIT {
    @TempDir
    Path dir;

    /** Writes through address 0, which the JVM cannot take for an implicit null check: it crashes. */
    public static final class Crasher {
        public static void main(String[] args) throws Exception {
            // By reflection: naming sun.misc.Unsafe in source is a compiler warning, and warnings are errors.
            Class<?> type = Class.forName("sun.misc.Unsafe");
            Field field = type.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            Object unsafe = field.get(null);
            Method putLong = type.getMethod("putLong", long.class, long.class);
            System.out.println("writing through address 0");
            System.out.flush();
            putLong.invoke(unsafe, 0L, 42L);
            System.out.println("still alive");
        }
    }

    @Test
    void theCrashReportEndsTheOutput() throws Exception {
        ChildJvm.Spec spec = new ChildJvm.Spec(Crasher.class).directory(dir).bound(Duration.ofSeconds(90));
        try (ChildJvm child = spec.start()) {
            int status = child.waitFor();
            String out = child.output();
            assertNotEquals(0, status, out);
            assertTrue(out.contains("writing through address 0"), out);
            assertTrue(!out.contains("still alive"), out);
            int appended = out.indexOf("--- the first ");
            assertTrue(appended > 0, "no crash report appended: " + out);
            String report = out.substring(appended);
            assertTrue(report.contains(".hs_err ---"), report);
            assertTrue(report.contains("A fatal error has been detected by the Java Runtime Environment"), report);
            assertTrue(report.contains("Problematic frame:"), report);
            assertTrue(report.contains("Native frames:"), report);
        }
    }
}
