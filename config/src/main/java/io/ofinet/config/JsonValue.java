package io.ofinet.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON value of a layout, as jackson-core's streaming parser reads it ({@link #read}): only what a
 * layout needs, so that reading one loads no data-binding library (ObjectMapper and its tree bring
 * about 350 classes into every JVM that reads a layout, an NCCL rank's included).
 */
sealed interface JsonValue {
    /** An object's fields, in the document's order; the parser refuses a name given twice. */
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

    /**
     * The value that starts at {@code parser}'s current token, read to its end (the parser is left on
     * its last token).
     *
     * @throws IOException as the parser throws it: malformed JSON, a name given twice, a limit passed
     */
    static JsonValue read(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == null) {
            throw new IllegalStateException("no token to read a value from");
        }
        switch (token) {
            case START_OBJECT -> {
                Map<String, JsonValue> fields = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    fields.put(name, read(parser));
                }
                return new JsonObject(Collections.unmodifiableMap(fields));
            }
            case START_ARRAY -> {
                List<JsonValue> items = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    items.add(read(parser));
                }
                return new JsonArray(Collections.unmodifiableList(items));
            }
            case VALUE_STRING -> {
                return new JsonString(parser.getText());
            }
            case VALUE_NUMBER_INT -> {
                return new JsonNumber(parser.getBigIntegerValue());
            }
            case VALUE_NUMBER_FLOAT -> {
                return new JsonNumber(null);
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return new JsonBoolean(token == JsonToken.VALUE_TRUE);
            }
            case VALUE_NULL -> {
                return new JsonNull();
            }
            default -> throw new IllegalStateException("a value cannot start at " + token);
        }
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
