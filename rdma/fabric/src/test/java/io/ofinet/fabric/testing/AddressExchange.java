package io.ofinet.fabric.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Out-of-band exchange of small values (endpoint addresses, keys) between processes, through
 * files in a shared directory. A value is written to a temporary file and moved into place, so
 * a reader never sees half of it.
 */
public final class AddressExchange {
    private final Path dir;

    public AddressExchange(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    public void publish(String name, byte[] value) throws IOException {
        Path tmp = Files.createTempFile(dir, name, ".tmp");
        Files.write(tmp, value);
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    public void publish(String name, String value) throws IOException {
        publish(name, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Waits for a value within the timeout. */
    public byte[] await(String name, Duration timeout) throws IOException, InterruptedException, TimeoutException {
        Path file = dir.resolve(name);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("no " + name + " in " + dir + " within " + timeout);
            }
            Thread.sleep(5);
        }
        return Files.readAllBytes(file);
    }

    public String awaitString(String name, Duration timeout) throws IOException, InterruptedException, TimeoutException {
        return new String(await(name, timeout), java.nio.charset.StandardCharsets.UTF_8);
    }

    public boolean has(String name) {
        return Files.exists(dir.resolve(name));
    }
}
