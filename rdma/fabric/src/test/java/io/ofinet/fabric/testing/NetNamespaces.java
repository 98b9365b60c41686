package io.ofinet.fabric.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Network namespaces joined by veth pairs, as hosts with several NICs for multi-rail tests.
 * Needs root (available on these machines and in CI). Closing removes every namespace it made,
 * which also removes their veth ends.
 */
public final class NetNamespaces implements AutoCloseable {
    private final List<String> namespaces = new ArrayList<>();

    /** Whether this process may create namespaces (root and the ip tool present). */
    public static boolean available() {
        try {
            return run("id", "-u").trim().equals("0") && run("ip", "-V").contains("ip");
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Creates a namespace with its loopback up. */
    public String create(String name) throws IOException, InterruptedException {
        run("ip", "netns", "add", name);
        namespaces.add(name);
        run("ip", "-n", name, "link", "set", "lo", "up");
        return name;
    }

    /** Joins two namespaces with a veth pair, addresses in CIDR form (e.g. 10.77.1.1/24). */
    public void link(String nsA, String ifA, String addrA, String nsB, String ifB, String addrB)
            throws IOException, InterruptedException {
        run("ip", "link", "add", ifA, "netns", nsA, "type", "veth", "peer", "name", ifB, "netns", nsB);
        run("ip", "-n", nsA, "addr", "add", addrA, "dev", ifA);
        run("ip", "-n", nsB, "addr", "add", addrB, "dev", ifB);
        run("ip", "-n", nsA, "link", "set", ifA, "up");
        run("ip", "-n", nsB, "link", "set", ifB, "up");
        awaitUp(nsA, ifA);
        awaitUp(nsB, ifB);
    }

    /**
     * Waits until an interface is operationally up. Until then libfabric's tcp provider does not
     * list it as a domain (fi_getinfo offers only a generic "tcp" domain).
     */
    public void awaitUp(String ns, String iface) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!run("ip", "netns", "exec", ns, "cat", "/sys/class/net/" + iface + "/operstate").trim().equals("up")) {
            if (System.nanoTime() > deadline) {
                throw new IOException(iface + " in " + ns + " did not come up within 10 s");
            }
            Thread.sleep(20);
        }
    }

    /** Sets an interface down or up, to cut or restore a rail. */
    public void setLink(String ns, String iface, boolean up) throws IOException, InterruptedException {
        run("ip", "-n", ns, "link", "set", iface, up ? "up" : "down");
    }

    /** Bytes sent on an interface so far (its tx counter). */
    public long txBytes(String ns, String iface) throws IOException, InterruptedException {
        return Long.parseLong(run("ip", "netns", "exec", ns, "cat",
                "/sys/class/net/" + iface + "/statistics/tx_bytes").trim());
    }

    /** The command prefix that runs a program inside a namespace. */
    public static String[] exec(String ns) {
        return new String[] {"ip", "netns", "exec", ns};
    }

    /** Debian's libfabric, which the tests of a missing libfabric hide ({@link #hiding}). */
    public static final Path LIBFABRIC = Path.of("/usr/lib/x86_64-linux-gnu/libfabric.so.1");

    /** Whether {@link #hiding} can hide {@code file}: root, as {@link #available} checks, and the file there. */
    public static boolean canHide(Path file) {
        return available() && Files.exists(file);
    }

    /**
     * The command prefix that runs a program in a private mount namespace in which /dev/null is bound
     * over {@code file}: for that program alone, a library that cannot be loaded. Needs root, as
     * {@link #available} checks.
     */
    public static String[] hiding(Path file) {
        return new String[] {"unshare", "-m", "--propagation", "private", "sh", "-c",
            "mount --bind /dev/null " + file + " && exec \"$0\" \"$@\""};
    }

    static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.trim());
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            try {
                run("ip", "netns", "del", namespaces.get(i));
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        namespaces.clear();
        if (first != null) {
            throw first;
        }
    }
}
