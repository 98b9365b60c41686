package io.ofinet.nccl;

import java.util.Locale;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * ofinet's log records in NCCL's logger: once an {@code init} hands one, every record of the
 * {@code io.ofinet} loggers ({@code System.Logger}'s default backend, java.util.logging) goes to it
 * through the library — WARNING and SEVERE as NCCL's WARN, INFO as INFO, finer as TRACE, with NCCL's
 * NET subsystem flag — so {@code NCCL_DEBUG=INFO} shows them with NCCL's prefix and {@code
 * NCCL_DEBUG_SUBSYS=NET} selects them. The {@code io.ofinet} level follows {@code NCCL_DEBUG} (INFO
 * unless it says WARN or TRACE); NCCL filters the rest itself. Without NCCL's logger, {@code
 * OFINET_DEBUG} applies as in the Java door.
 */
final class NcclLogging {
    /** java.util.logging keeps loggers weakly: held here. */
    private static Logger root;

    private NcclLogging() {
    }

    /** Routes the {@code io.ofinet} records to {@code log}; once per JVM. */
    static synchronized void toNccl(NcclDoor.Log log) {
        if (root != null) {
            return;
        }
        root = Logger.getLogger("io.ofinet");
        root.setLevel(levelOf(System.getenv("NCCL_DEBUG")));
        root.setUseParentHandlers(false);
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (!isLoggable(record)) {
                    return;
                }
                String message = getFormatter().format(record);
                int level = record.getLevel().intValue();
                if (level >= Level.WARNING.intValue()) {
                    log.warn(message);
                } else if (level >= Level.INFO.intValue()) {
                    log.info(message);
                } else {
                    log.trace(message);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        handler.setFormatter(new Formatter() {
            @Override
            public String format(LogRecord record) {
                String text = formatMessage(record);
                return record.getThrown() == null ? text : text + " (" + record.getThrown() + ")";
            }
        });
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
    }

    /** The {@code io.ofinet} level for {@code NCCL_DEBUG}. */
    static Level levelOf(String ncclDebug) {
        String value = ncclDebug == null ? "" : ncclDebug.trim().toUpperCase(Locale.ROOT);
        return switch (value) {
            case "VERSION", "WARN" -> Level.WARNING;
            case "TRACE" -> Level.FINEST;
            default -> Level.INFO;
        };
    }
}
