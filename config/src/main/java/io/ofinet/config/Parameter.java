package io.ofinet.config;

import java.util.List;
import java.util.Optional;

/**
 * A device-wide parameter: its layout name, environment and system-property names, type,
 * default, unit and bounds, and the checks of a value read for it. Every parameter ofinet reads is
 * in {@link Parameters}.
 *
 * @param <T> the value type: {@link Long}, {@link Boolean}, {@link MrScope}, {@link WriteNotice} or {@link EagerHead}
 */
public final class Parameter<T> {

    private final String name;
    private final ValueType<T> type;
    private final T defaultValue;
    private final String unit;
    private final long min;
    private final long max;
    private final long multipleOf;
    private final String description;
    /** The name it had before, still accepted in layouts, the environment and system properties; or null. */
    private final String formerName;

    Parameter(String name, ValueType<T> type, T defaultValue, String unit, long min,
            long max, String description) {
        this(name, type, defaultValue, unit, min, max, 1, description);
    }

    Parameter(String name, ValueType<T> type, T defaultValue, String unit, long min,
            long max, long multipleOf, String description) {
        this(name, type, defaultValue, unit, min, max, multipleOf, description, null);
    }

    private Parameter(String name, ValueType<T> type, T defaultValue, String unit, long min,
            long max, long multipleOf, String description, String formerName) {
        this.name = name;
        this.type = type;
        this.defaultValue = defaultValue;
        this.unit = unit;
        this.min = min;
        this.max = max;
        this.multipleOf = multipleOf;
        this.description = description;
        this.formerName = formerName;
    }

    static Parameter<Long> bytes(String name, long defaultValue, long min, String description) {
        return new Parameter<>(name, ValueType.LONG, defaultValue, "B", min, Long.MAX_VALUE, description);
    }

    static Parameter<Long> count(String name, long defaultValue, long min, long max,
            String description) {
        return new Parameter<>(name, ValueType.LONG, defaultValue, "", min, max, description);
    }

    static <E extends Enum<E>> Parameter<E> choice(String name, ValueType<E> type, E defaultValue,
            String description) {
        return new Parameter<>(name, type, defaultValue, "", Long.MIN_VALUE, Long.MAX_VALUE, description);
    }

    static Parameter<Boolean> flag(String name, boolean defaultValue, String description) {
        return new Parameter<>(name, ValueType.BOOLEAN, defaultValue, "", 0, 0, description);
    }

    /** The same parameter, also accepted under the name it had before. */
    Parameter<T> formerly(String former) {
        return new Parameter<>(name, type, defaultValue, unit, min, max, multipleOf, description, former);
    }

    /**
     * The name it had before, still accepted wherever {@link #name()} is (a layout, the
     * environment, system properties), so that configurations written for it keep working.
     */
    public Optional<String> formerName() {
        return Optional.ofNullable(formerName);
    }

    /** The name in a layout file, e.g. {@code eagerMaxSize}. */
    public String name() {
        return name;
    }

    /** The environment variable, e.g. {@code OFINET_EAGER_MAX_SIZE}. */
    public String envName() {
        return envName(name);
    }

    /** The environment variable of layout name {@code layoutName}. */
    static String envName(String layoutName) {
        StringBuilder sb = new StringBuilder("OFINET_");
        for (char c : layoutName.toCharArray()) {
            if (Character.isUpperCase(c)) {
                sb.append('_');
            }
            sb.append(Character.toUpperCase(c));
        }
        return sb.toString();
    }

    /** The Java system property, e.g. {@code ofinet.eagerMaxSize}. */
    public String propertyName() {
        return "ofinet." + name;
    }

    /** The names it is set by in a layout, newest last: its former name, if any, then its name. */
    List<String> layoutNames() {
        return formerName == null ? List.of(name) : List.of(formerName, name);
    }

    public T defaultValue() {
        return defaultValue;
    }

    /** The unit of the value: {@code "B"}, {@code "ms"} or empty for counts and switches. */
    public String unit() {
        return unit;
    }

    public String description() {
        return description;
    }

    /** Smallest accepted value of a numeric parameter. */
    public long min() {
        return min;
    }

    /** Largest accepted value of a numeric parameter. */
    public long max() {
        return max;
    }

    /** The kind of value, as named in error messages: "an integer", "a boolean", ... */
    public String typeDescription() {
        return type.description;
    }

    /**
     * Reads a value from a layout's JSON value.
     *
     * @throws IllegalArgumentException with the rule broken, without the path
     */
    T fromJson(JsonValue value) {
        try {
            return checked(type.fromJson(value));
        } catch (ValueType.OutOfRange e) {
            throw outOfRange(e);
        }
    }

    /**
     * Reads a value from an environment variable or system property.
     *
     * @throws IllegalArgumentException with the rule broken, without the source
     */
    T fromText(String text) {
        try {
            return checked(type.fromText(text.trim()));
        } catch (ValueType.OutOfRange e) {
            throw outOfRange(e);
        }
    }

    private IllegalArgumentException outOfRange(ValueType.OutOfRange e) {
        return new IllegalArgumentException((e.negative() ? "must be at least " + min : "must be at most " + max)
                + ", found " + e.text, e);
    }

    /** Formats a value as a layout would write it. */
    public String format(Object value) {
        return value instanceof Enum<?> choice ? ValueType.spelling(choice) : String.valueOf(value);
    }

    private T checked(T value) {
        if (value instanceof Long number) {
            if (multipleOf > 1 && (number <= 0 || number % multipleOf != 0)) {
                throw new IllegalArgumentException(
                        "must be a positive multiple of " + multipleOf + ", found " + number);
            }
            if (number < min) {
                throw new IllegalArgumentException("must be at least " + min + ", found " + number);
            }
            if (number > max) {
                throw new IllegalArgumentException("must be at most " + max + ", found " + number);
            }
        }
        return value;
    }

    @Override
    public String toString() {
        return name;
    }
}
