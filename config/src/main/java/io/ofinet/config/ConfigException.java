package io.ofinet.config;

import java.util.Objects;

/**
 * A layout or parameter that breaks a rule. The message names where the bad value came from
 * (a layout file, the environment, ...), its path (a JSON path such as {@code
 * devices[0].controlRails[1].dataRail}, or a variable name), and the rule broken.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String origin;
    private final String path;
    private final String rule;

    public ConfigException(String origin, String path, String rule) {
        this(origin, path, rule, null);
    }

    public ConfigException(String origin, String path, String rule, Throwable cause) {
        super(format(origin, path, rule), cause);
        this.origin = Objects.requireNonNull(origin, "origin");
        this.path = Objects.requireNonNull(path, "path");
        this.rule = Objects.requireNonNull(rule, "rule");
    }

    private static String format(String origin, String path, String rule) {
        return path.isEmpty() ? origin + ": " + rule : origin + ": " + path + ": " + rule;
    }

    /** Where the value came from: a layout file's name, {@code environment}, ... */
    public String origin() {
        return origin;
    }

    /** The JSON path or variable of the bad value; empty for the document as a whole. */
    public String path() {
        return path;
    }

    /** The rule broken, without origin and path. */
    public String rule() {
        return rule;
    }
}
