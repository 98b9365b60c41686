package io.ofinet.plugin.ofi;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * {@code OFINET_DEBUG=WARN|INFO|DEBUG|TRACE}, with {@code OFINET_DEBUG_SUBSYS=init,net,mr,fabric}
 * (default: all), in the manner of {@code NCCL_DEBUG} and {@code NCCL_DEBUG_SUBSYS}: one line per
 * message on stderr, {@code ofinet INFO init: ...}, without any logging configuration. It sets up
 * {@code java.util.logging}, the default backend of {@code System.Logger}; an application that
 * routes {@code System.Logger} elsewhere configures the {@code io.ofinet} loggers there instead.
 *
 * <p>Subsystems and their loggers: {@code init} the plugin and the configuration ({@code
 * io.ofinet.plugin}, {@code io.ofinet.config}), {@code net} the protocol ({@code io.ofinet.rdma}),
 * {@code mr} registrations ({@code io.ofinet.mr}), {@code fabric} the libfabric binding ({@code
 * io.ofinet.fabric}). Warnings of every subsystem are printed whatever the filter.
 */
final class DebugLogging {
    static final String VARIABLE = "OFINET_DEBUG";
    static final String SUBSYSTEMS = "OFINET_DEBUG_SUBSYS";
    private static final Map<String, List<String>> LOGGERS = Map.of(
            "init", List.of("io.ofinet.plugin", "io.ofinet.config"),
            "net", List.of("io.ofinet.rdma"),
            "mr", List.of("io.ofinet.mr"),
            "fabric", List.of("io.ofinet.fabric"));
    /** java.util.logging keeps loggers weakly: the configured ones are held here. */
    private static final List<Logger> CONFIGURED = new ArrayList<>();
    private static boolean configured;

    private DebugLogging() {
    }

    /** Applies {@code OFINET_DEBUG} from the process environment, once per JVM. */
    static synchronized void fromEnvironment() {
        if (!configured) {
            configured = true;
            apply(System.getenv(), System.err);
        }
    }

    /**
     * Applies the two variables of {@code env}, printing to {@code out}; does nothing when {@code
     * OFINET_DEBUG} is unset.
     *
     * @throws IllegalArgumentException naming the variable and the values it takes
     */
    static synchronized void apply(Map<String, String> env, OutputStream out) {
        String value = env.get(VARIABLE);
        if (value == null || value.isBlank()) {
            return;
        }
        Level level = switch (value.trim().toUpperCase(Locale.ROOT)) {
            case "WARN", "WARNING" -> Level.WARNING;
            case "INFO" -> Level.INFO;
            case "DEBUG" -> Level.FINE;
            case "TRACE" -> Level.FINEST;
            default -> throw new IllegalArgumentException(VARIABLE + "=" + value + ": expected WARN, INFO, DEBUG or"
                    + " TRACE");
        };
        String subsys = env.getOrDefault(SUBSYSTEMS, "all");
        List<String> chosen = new ArrayList<>();
        for (String name : subsys.split(",")) {
            String s = name.trim().toLowerCase(Locale.ROOT);
            if (s.equals("all")) {
                chosen.addAll(LOGGERS.keySet());
            } else if (LOGGERS.containsKey(s)) {
                chosen.add(s);
            } else if (!s.isEmpty()) {
                throw new IllegalArgumentException(SUBSYSTEMS + "=" + subsys + ": unknown subsystem " + s
                        + "; known: all, init, net, mr, fabric");
            }
        }
        reset();
        Logger root = Logger.getLogger("io.ofinet");
        StreamHandler handler = new StreamHandler(new PrintStream(out, true), new OneLine()) {
            @Override
            public synchronized void publish(LogRecord record) {
                super.publish(record);
                flush();
            }

            /**
             * Flushes, as ConsoleHandler does, and leaves the stream open: it is the process's stderr,
             * which java.util.logging's reset at shutdown would otherwise close (the JDK then points
             * file descriptor 2 at /dev/null, and the host loses what it writes there afterwards).
             */
            @Override
            public synchronized void close() {
                flush();
            }
        };
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setUseParentHandlers(false);
        root.setLevel(Level.WARNING);
        CONFIGURED.add(root);
        for (Map.Entry<String, List<String>> e : LOGGERS.entrySet()) {
            for (String name : e.getValue()) {
                Logger logger = Logger.getLogger(name);
                logger.setLevel(chosen.contains(e.getKey()) ? level : Level.WARNING);
                CONFIGURED.add(logger);
            }
        }
    }

    /** Undoes {@link #apply}: the loggers go back to java.util.logging's configuration. */
    static synchronized void reset() {
        for (Logger logger : CONFIGURED) {
            for (Handler h : logger.getHandlers()) {
                logger.removeHandler(h);
                h.close();
            }
            logger.setLevel(null);
            logger.setUseParentHandlers(true);
        }
        CONFIGURED.clear();
    }

    /** {@code ofinet INFO init: message}, the subsystem taken from the logger's package. */
    private static final class OneLine extends Formatter {
        @Override
        public String format(LogRecord record) {
            String name = record.getLoggerName() == null ? "" : record.getLoggerName();
            String subsystem = LOGGERS.entrySet().stream()
                    .filter(e -> e.getValue().stream().anyMatch(name::startsWith))
                    .map(Map.Entry::getKey).findFirst().orElse("ofinet");
            String level = record.getLevel() == Level.WARNING ? "WARN" : record.getLevel() == Level.SEVERE ? "ERROR"
                    : record.getLevel().intValue() >= Level.INFO.intValue() ? "INFO"
                    : record.getLevel().intValue() >= Level.FINE.intValue() ? "DEBUG" : "TRACE";
            String line = "ofinet " + level + " " + subsystem + ": " + formatMessage(record) + System.lineSeparator();
            return record.getThrown() == null ? line : line + "  " + record.getThrown() + System.lineSeparator();
        }
    }
}
