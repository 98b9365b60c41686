package io.ofinet.config;

import java.util.Objects;

/**
 * A resolved parameter value and where it came from.
 *
 * @param parameter the parameter
 * @param value the value, never null
 * @param source the kind of source that supplied it
 * @param origin the precise place: a JSON path for a file, a variable or property name for the
 *     environment or a system property, {@code "default"} for defaults
 * @param <T> the value type
 */
public record Setting<T>(Parameter<T> parameter, T value, Source source, String origin) {
    public Setting {
        Objects.requireNonNull(parameter, "parameter");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(origin, "origin");
    }

    /** The value in the layout's notation. */
    public String formattedValue() {
        return parameter.format(value);
    }
}
