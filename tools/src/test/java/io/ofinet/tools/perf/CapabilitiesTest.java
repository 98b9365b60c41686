package io.ofinet.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CapabilitiesTest {

    @Test
    void ofinetPerfSaysWhatItSupportsAndRunsNothing() {
        StringWriter out = new StringWriter();
        int status = new CommandLine(new OfinetPerf()).setOut(new PrintWriter(out)).execute("capabilities");
        assertEquals(0, status);
        assertEquals(Capabilities.NAMES, out.toString().lines().toList());
        assertTrue(Capabilities.NAMES.contains("reps"));
    }

    @Test
    void everyNameIsAnOptionOrATestOfOfinetPerf() {
        CommandLine perf = new CommandLine(new OfinetPerf());
        for (String name : Capabilities.NAMES) {
            assertTrue(perf.getCommandSpec().findOption("--" + name) != null || OfinetPerf.TESTS.contains(name),
                    name);
        }
        assertTrue(Capabilities.NAMES.contains("drained"));
    }
}
