package io.ofinet.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/CONFIGURATION.md lists every parameter with its environment name and default. */
class DocumentationTest {

    @Test
    void everyParameterIsDocumentedWithItsDefault() throws IOException {
        String doc = Files.readString(Path.of("../docs/CONFIGURATION.md"));
        for (Parameter<?> parameter : Parameter.ALL) {
            String row = "| `" + parameter.name() + "` | `" + parameter.envName() + "` | "
                    + parameter.format(parameter.defaultValue()) + " |";
            assertTrue(doc.contains(row), "docs/CONFIGURATION.md lacks the row " + row);
        }
    }
}
