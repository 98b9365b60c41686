package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The entries' one type, on both sides of the crossing: the C header {@code ofinet_java.h}, which
 * the library is built from, against the upcall targets the bridge and the warm-up make stubs for.
 */
class NcclBridgeTest {
    private static final Path HEADER = Path.of("src/main/c/ofinet_java.h");

    /** The header's entries, each with how many arguments it lists. */
    private static Map<String, Integer> headerEntries(String header) {
        Map<String, Integer> entries = new LinkedHashMap<>();
        Matcher m = Pattern.compile("X\\((\\w+), \\(([^)]*)\\)\\)").matcher(header);
        while (m.find()) {
            String args = m.group(2).strip();
            entries.put(m.group(1), args.isEmpty() ? 0 : args.split(",").length);
        }
        return entries;
    }

    @Test
    void everyEntryOfTheHeaderHasATargetOfTheOneType() throws IOException {
        String header = Files.readString(HEADER);
        Matcher count = Pattern.compile("#define OFINET_ENTRY_ARGS (\\d+)").matcher(header);
        assertTrue(count.find(), "OFINET_ENTRY_ARGS in " + HEADER);
        assertEquals(NcclBridge.ENTRY_ARGS, Integer.parseInt(count.group(1)));
        assertTrue(header.contains("typedef int (*ofinet_entry)(" + "int64_t, ".repeat(NcclBridge.ENTRY_ARGS - 1)
                + "int64_t);"), "ofinet_entry has OFINET_ENTRY_ARGS int64_t");
        Map<String, Integer> entries = headerEntries(header);
        assertEquals(17, entries.size(), entries.toString());
        entries.forEach((name, args) -> {
            assertTrue(args <= NcclBridge.ENTRY_ARGS, name + " lists more arguments than the type has");
            Method target = NcclBridge.entry(NcclTable.class, name);
            assertNotNull(target, "NcclTable." + name);
            assertSame(NcclBridge.ENTRY, NcclBridge.descriptor(target), name);
        });
    }

    @Test
    void theWarmUpsTargetsHaveTheOneTypeToo() {
        for (String name : new String[] {"init", "finalize", "listen", "connect", "accept", "regMr", "deregMr",
                "isend", "irecv", "test", "closeSend", "closeRecv", "closeListen"}) {
            Method target = NcclBridge.entry(WarmUpCalls.Targets.class, name);
            assertNotNull(target, "Targets." + name);
            assertSame(NcclBridge.ENTRY, NcclBridge.descriptor(target), name);
        }
    }

    static int narrow(long a, int b, long c, long d, long e, long f, long g) {
        return 0;
    }

    static int few(long a, long b) {
        return 0;
    }

    @Test
    void aTargetOfAnotherTypeIsRefusedByName() throws ReflectiveOperationException {
        for (Method m : new Method[] {
                NcclBridgeTest.class.getDeclaredMethod("narrow", long.class, int.class, long.class, long.class, long.class,
                        long.class, long.class),
                NcclBridgeTest.class.getDeclaredMethod("few", long.class, long.class)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NcclBridge.descriptor(m));
            assertTrue(e.getMessage().contains(m.getName()) && e.getMessage().contains("7 longs"), e.getMessage());
        }
    }
}
