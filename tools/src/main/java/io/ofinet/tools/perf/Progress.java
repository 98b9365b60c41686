package io.ofinet.tools.perf;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One progress line on stderr, rewritten in place ({@code \r}) and erased before each table row —
 * only when stderr is a terminal: never in a pipe, a file or CSV, where it would land among the
 * rows.
 */
final class Progress {
    private final PrintStream err;
    private final boolean shown;
    private int width;

    Progress(PrintStream err, boolean terminal) {
        this.err = err;
        this.shown = terminal;
    }

    /** Progress for the process's own stderr: shown when file descriptor 2 is a terminal. */
    static Progress onStderr() {
        return new Progress(System.err, stderrIsTerminal());
    }

    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Replaces the progress line with {@code text}. */
    void show(String text) {
        if (shown) {
            clear();
            err.print(text);
            err.flush();
            width = text.length();
        }
    }

    /** Erases the progress line, if one is shown. */
    void clear() {
        if (shown && width > 0) {
            err.print("\r" + " ".repeat(width) + "\r");
            err.flush();
            width = 0;
        }
    }
}
