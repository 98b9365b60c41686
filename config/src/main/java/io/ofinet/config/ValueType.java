package io.ofinet.config;

import java.util.Locale;
import java.util.Objects;
import java.util.StringJoiner;

/** How values of one type are read from JSON and from text. */
abstract class ValueType<T> {
    static final ValueType<Long> LONG = new ValueType<>("an integer") {
        @Override
        Long fromJson(JsonValue value) {
            if (!(value instanceof JsonValue.JsonNumber number) || !number.integral()) {
                throw wrongType(value);
            }
            if (!number.integralWithin(Long.MIN_VALUE, Long.MAX_VALUE)) {
                throw new OutOfRange(number.integer().toString());
            }
            return number.integer().longValue();
        }

        @Override
        Long fromText(String text) {
            // Digits of ASCII only: Long.parseLong also takes other scripts' digits, which JSON does not.
            if (!text.matches("[+-]?[0-9]+")) {
                throw new IllegalArgumentException("expected an integer, found \"" + text + "\"");
            }
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new OutOfRange(text);
            }
        }
    };

    /** An integer beyond a long's range: the parameter that reads it names its own range. */
    static final class OutOfRange extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        final String text;

        OutOfRange(String text) {
            super("integer out of range: " + text);
            this.text = text;
        }

        boolean negative() {
            return text.startsWith("-");
        }
    }

    static final ValueType<Boolean> BOOLEAN = new ValueType<>("a boolean") {
        @Override
        Boolean fromJson(JsonValue value) {
            if (!(value instanceof JsonValue.JsonBoolean bool)) {
                throw wrongType(value);
            }
            return bool.value();
        }

        @Override
        Boolean fromText(String text) {
            switch (text.toLowerCase(Locale.ROOT)) {
                case "1": case "true": case "yes": case "on":
                    return true;
                case "0": case "false": case "no": case "off":
                    return false;
                default:
                    throw new IllegalArgumentException(
                            "expected a boolean (true/false, yes/no, on/off, 1/0), found \"" + text + "\"");
            }
        }
    };

    static final ValueType<MrScope> MR_SCOPE = choice(MrScope.values());
    static final ValueType<WriteNotice> WRITE_NOTICE = choice(WriteNotice.values());
    static final ValueType<EagerHead> EAGER_HEAD = choice(EagerHead.values());

    /**
     * How a layout spells {@code value}: its {@code jsonName()} where it has one that differs from
     * its Java name ({@link WriteNotice}), else its name in lower case.
     */
    static String spelling(Enum<?> value) {
        return value instanceof WriteNotice notice ? notice.jsonName() : value.name().toLowerCase(Locale.ROOT);
    }

    /** One of an enumeration's spellings ({@link #spelling}), in a layout as spelled, in any case in the environment. */
    private static <E extends Enum<E>> ValueType<E> choice(E[] values) {
        return new ValueType<>("a string") {
            @Override
            E fromJson(JsonValue value) {
                if (!(value instanceof JsonValue.JsonString string)) {
                    throw wrongType(value);
                }
                return parse(string.text());
            }

            @Override
            E fromText(String text) {
                return parse(text.toLowerCase(Locale.ROOT));
            }

            private E parse(String text) {
                StringJoiner names = new StringJoiner(", ");
                for (E value : values) {
                    String name = spelling(value);
                    if (name.equals(text)) {
                        return value;
                    }
                    names.add(name);
                }
                throw new IllegalArgumentException("expected one of " + names + ", found \"" + text + "\"");
            }
        };
    }

    final String description;

    ValueType(String description) {
        this.description = Objects.requireNonNull(description);
    }

    abstract T fromJson(JsonValue value);

    abstract T fromText(String text);

    IllegalArgumentException wrongType(JsonValue value) {
        return new IllegalArgumentException(
                "expected " + description + ", found " + JsonValue.describe(value));
    }
}
