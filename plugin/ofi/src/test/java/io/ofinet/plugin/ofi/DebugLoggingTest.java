package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DebugLoggingTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @AfterEach
    void reset() {
        DebugLogging.reset();
    }

    @Test
    void infoForTheChosenSubsystemsAndWarningsForAll() {
        DebugLogging.apply(Map.of(DebugLogging.VARIABLE, "info", DebugLogging.SUBSYSTEMS, "init,mr"), out);
        System.getLogger("io.ofinet.plugin.ofi.OfiNetPlugin").log(System.Logger.Level.INFO, "device {0} ready", "d");
        System.getLogger("io.ofinet.mr.Registrar").log(System.Logger.Level.INFO, "registered");
        System.getLogger("io.ofinet.rdma.Handshake").log(System.Logger.Level.INFO, "not shown: net is not chosen");
        System.getLogger("io.ofinet.rdma.Handshake").log(System.Logger.Level.WARNING, "a warning of net");
        System.getLogger("io.ofinet.plugin.ofi.OfiNetPlugin").log(System.Logger.Level.DEBUG, "not shown: debug");
        String text = out.toString();
        assertTrue(text.contains("ofinet INFO init: device d ready\n"), text);
        assertTrue(text.contains("ofinet INFO mr: registered\n"), text);
        assertTrue(text.contains("ofinet WARN net: a warning of net\n"), text);
        assertFalse(text.contains("not shown"), text);
    }

    @Test
    void traceShowsDebugMessages() {
        DebugLogging.apply(Map.of(DebugLogging.VARIABLE, "TRACE"), out);
        System.getLogger("io.ofinet.rdma.rail.RailSet").log(System.Logger.Level.DEBUG, "rails [tcp]");
        assertEquals("ofinet DEBUG net: rails [tcp]\n", out.toString());
    }

    /**
     * The stream is the process's stderr: removing the handler (as java.util.logging's reset at
     * shutdown does) flushes it and leaves it open.
     */
    @Test
    void aResetLeavesTheStreamOpen() {
        boolean[] closed = {false};
        java.io.OutputStream stderr = new java.io.FilterOutputStream(out) {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        DebugLogging.apply(Map.of(DebugLogging.VARIABLE, "INFO"), stderr);
        System.getLogger("io.ofinet.plugin.ofi.OfiNetPlugin").log(System.Logger.Level.INFO, "before the reset");
        DebugLogging.reset();
        assertFalse(closed[0], "the handler closed stderr");
        assertEquals("ofinet INFO init: before the reset\n", out.toString());
    }

    @Test
    void badValuesNameTheVariableAndTheChoices() {
        IllegalArgumentException level = assertThrows(IllegalArgumentException.class,
                () -> DebugLogging.apply(Map.of(DebugLogging.VARIABLE, "LOUD"), out));
        assertEquals("OFINET_DEBUG=LOUD: expected WARN, INFO, DEBUG or TRACE", level.getMessage());
        IllegalArgumentException subsys = assertThrows(IllegalArgumentException.class, () -> DebugLogging.apply(
                Map.of(DebugLogging.VARIABLE, "INFO", DebugLogging.SUBSYSTEMS, "init,coll"), out));
        assertEquals("OFINET_DEBUG_SUBSYS=init,coll: unknown subsystem coll; known: all, init, net, mr, fabric",
                subsys.getMessage());
    }
}
