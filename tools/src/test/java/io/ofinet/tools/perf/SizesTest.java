package io.ofinet.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SizesTest {

    @Test
    void sizesTakeNcclTestsSuffixes() {
        assertEquals(8, Sizes.parse("8"));
        assertEquals(0, Sizes.parse("0"));
        assertEquals(4096, Sizes.parse("4K"));
        assertEquals(4096, Sizes.parse("4k"));
        assertEquals(1L << 20, Sizes.parse("1M"));
        assertEquals(128L << 20, Sizes.parse("128MB"));
        assertEquals(1L << 30, Sizes.parse("1G"));
        assertEquals(8, Sizes.parse("8B"));
    }

    @Test
    void badSizesSayWhatASizeIs() {
        CommandLine.TypeConversionException e = assertThrows(CommandLine.TypeConversionException.class,
                () -> Sizes.parse("lots"));
        assertTrue(e.getMessage().contains("'lots' is not a size"), e.getMessage());
        assertThrows(CommandLine.TypeConversionException.class, () -> Sizes.parse("-1K"));
        assertThrows(CommandLine.TypeConversionException.class, () -> Sizes.parse("99999999999G"));
    }

    @Test
    void theCommandLineAcceptsSuffixes() {
        OfinetPerf options = new OfinetPerf();
        new CommandLine(options).parseArgs("sendrecv", "-b", "1M", "-e", "128M", "--sizes", "4K,1M");
        assertEquals(1L << 20, options.minBytes);
        assertEquals(128L << 20, options.maxBytes);
        assertEquals(List.of(4096L, 1L << 20), options.sizes);
    }

    @Test
    void progressIsShownOnlyOnATerminalAndErasedBeforeRows() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Progress hidden = new Progress(new PrintStream(bytes), false);
        hidden.show("ofinet-perf: pingpong 8 B (1/3) ");
        hidden.clear();
        assertEquals("", bytes.toString());
        Progress shown = new Progress(new PrintStream(bytes), true);
        shown.show("abc");
        shown.clear();
        assertEquals("abc\r   \r", bytes.toString());
    }
}
