package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Which data path is active: FFM on JDK 22+ (from the multi-release jar), JNA on Java 17 or when
 * {@code ofinet.dataPath=jna} asks for it. Integration tests run against the packaged jar, so this
 * also proves the multi-release layout.
 */
class DataPathIT {

    @Test
    void theJdkChoosesTheDataPath() {
        boolean forcedJna = "jna".equals(System.getProperty(DataPaths.PROPERTY));
        String expected = Runtime.version().feature() >= 22 && !forcedJna ? "ffm" : "jna";
        assertEquals(expected, OfiProvider.dataPathName(), "on Java " + Runtime.version());
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
}
