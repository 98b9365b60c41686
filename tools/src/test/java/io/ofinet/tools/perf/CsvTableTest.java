package io.ofinet.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvTableTest {
    @TempDir
    Path dir;

    private Path write(String text) throws IOException {
        return Files.writeString(dir.resolve("results.csv"), text);
    }

    @Test
    void valuesAreReadByColumnNameWhateverTheOrder() throws IOException {
        CsvTable t = CsvTable.read(write("size,time_us,test\n8,3.125,pingpong\n\n4096,4.500,pingpong\n"), "test",
                "time_us");
        assertEquals(2, t.size());
        assertEquals("4096", t.get(1, "size"));
        assertEquals("3.125", t.get(0, "time_us"));
        assertEquals("pingpong", t.get(1, "test"));
    }

    @Test
    void aMissingColumnIsNamed() throws IOException {
        Path csv = write("test,provider,ranks,size,count,type,algbw_gbs\npingpong,shm,2,8,2,float,0.0020\n");
        IOException e = assertThrows(IOException.class, () -> CsvTable.read(csv, "test", "time_us", "redone"));
        assertTrue(e.getMessage().contains("no column time_us, redone"), e.getMessage());
        assertTrue(e.getMessage().contains("its header: test,provider,ranks"), e.getMessage());
        CsvTable t = CsvTable.read(csv, "test");
        IllegalArgumentException g = assertThrows(IllegalArgumentException.class, () -> t.get(0, "busbw_gbs"));
        assertTrue(g.getMessage().contains("no column busbw_gbs"), g.getMessage());
    }

    @Test
    void aRowOfAnotherWidthOrNoHeaderIsAnError() throws IOException {
        IOException e = assertThrows(IOException.class, () -> CsvTable.read(write("test,size\npingpong,8,9\n")));
        assertTrue(e.getMessage().contains("line 2 has 3 values, its header 2 columns"), e.getMessage());
        assertThrows(IOException.class, () -> CsvTable.read(write("")));
    }

    @Test
    void ofinetPerfWritesTheColumnsItsReadersName() {
        assertEquals("test", CsvTable.PERF_COLUMNS.get(0));
        assertTrue(CsvTable.PERF_COLUMNS.containsAll(List.of("size", "time_us", "algbw_gbs", "busbw_gbs")));
    }
}
