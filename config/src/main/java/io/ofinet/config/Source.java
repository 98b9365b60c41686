package io.ofinet.config;

/** Where a resolved configuration value came from, lowest precedence first. */
public enum Source {
    /** The built-in default. */
    DEFAULT("default"),
    /** Derived from what libfabric offers ({@code fi_getinfo}), with no layout file. */
    DISCOVERED("discovered"),
    /** The layout file. */
    FILE("file"),
    /** An {@code OFINET_<NAME>} environment variable. */
    ENVIRONMENT("environment"),
    /** An {@code ofinet.<name>} Java system property. */
    SYSTEM_PROPERTY("system property");

    private final String label;

    Source(String label) {
        this.label = label;
    }

    /** A short human label, as printed in reports. */
    public String label() {
        return label;
    }
}
