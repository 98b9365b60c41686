package io.ofinet.config;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/** A JSON value of a layout, as {@link JsonReader} reads it: only what a layout needs. */
sealed interface JsonValue {
    /** An object's fields, in the document's order; the reader refuses a name given twice. */
    record JsonObject(Map<String, JsonValue> fields) implements JsonValue {
        /** The field {@code name}, or null. */
        JsonValue get(String name) {
            return fields.get(name);
        }
    }

    /** An array's items. */
    record JsonArray(List<JsonValue> items) implements JsonValue {
        int size() {
            return items.size();
        }

        JsonValue get(int index) {
            return items.get(index);
        }
    }

    record JsonString(String text) implements JsonValue {
    }

    /** A number: {@code integer} is its value when it is written without a fraction or an exponent, else null. */
    record JsonNumber(BigInteger integer) implements JsonValue {
        boolean integral() {
            return integer != null;
        }

        /** Whether it is an integer from {@code min} to {@code max}. */
        boolean integralWithin(long min, long max) {
            return integer != null && integer.compareTo(BigInteger.valueOf(min)) >= 0
                    && integer.compareTo(BigInteger.valueOf(max)) <= 0;
        }
    }

    record JsonBoolean(boolean value) implements JsonValue {
    }

    record JsonNull() implements JsonValue {
    }

    /** "a string", "an integer", "a number", "an object", ... for error messages; "nothing" for null. */
    static String describe(JsonValue value) {
        if (value == null) {
            return "nothing";
        }
        if (value instanceof JsonNumber n) {
            return n.integral() ? "an integer" : "a number with a decimal point or an exponent";
        }
        return value instanceof JsonString ? "a string"
                : value instanceof JsonBoolean ? "a boolean"
                : value instanceof JsonArray ? "an array"
                : value instanceof JsonObject ? "an object"
                : "null";
    }
}
