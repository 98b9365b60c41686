package io.ofinet.plugin.ofi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One-rail layouts on loopback for the multi-JVM tests. */
final class LoopbackLayout {
    private LoopbackLayout() {
    }

    /** A layout file in {@code dir}: one data rail of {@code provider} ({@code tcp;ofi_rxm} on lo, or shm). */
    static Path write(Path dir, String provider) throws IOException {
        String rail = provider.equals("shm") ? "{\"provider\": \"shm\", \"domain\": \"shm\"}"
                : "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}";
        Path layout = dir.resolve("layout.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"loopback\", \"dataRails\": [" + rail + "]}]}");
        return layout;
    }
}
