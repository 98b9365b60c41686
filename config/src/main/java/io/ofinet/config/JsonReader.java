package io.ofinet.config;

import io.ofinet.config.JsonValue.JsonArray;
import io.ofinet.config.JsonValue.JsonObject;
import io.ofinet.config.JsonValue.JsonString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a layout document into {@link JsonValue}s: strict JSON (RFC 8259) and nothing else, no
 * comments, no trailing commas, no leading zeros, no unescaped control characters, a field name
 * given twice in one object refused. Its errors name the line and column, and the JSON path where
 * it helps. It loads nothing beyond {@code java.base}'s basics: a JSON library's parser brought
 * {@code BigDecimal} into every rank's {@code init}, whose static initializer computes 5^65536
 * (docs/DECISIONS.md).
 */
final class JsonReader {
    /** The deepest nesting of arrays and objects read. */
    static final int MAX_DEPTH = 1000;
    /** The most digits a number may have. */
    static final int MAX_NUMBER_DIGITS = 1000;

    private final JsonScanner in;
    private final String origin;
    /** The JSON path of the value being read: field names (String) and array indices (Integer). */
    private final List<Object> path = new ArrayList<>();
    /** How many arrays and objects hold the reader's position. */
    private int depth;

    private JsonReader(String text, String origin) {
        this.in = new JsonScanner(text, origin);
        this.origin = origin;
    }

    /**
     * The document's one value, or null when it holds only white space.
     *
     * @throws ConfigException malformed JSON, a field name given twice, a limit passed, or more after
     *     the value; {@code origin} names the document in the message
     */
    static JsonValue read(String text, String origin) throws ConfigException {
        JsonReader reader = new JsonReader(text, origin);
        JsonScanner in = reader.in;
        in.skipWhiteSpace();
        if (in.atEnd()) {
            return null;
        }
        JsonValue value = reader.value();
        in.skipWhiteSpace();
        if (!in.atEnd()) {
            throw new ConfigException(origin, in.location(in.at()), "malformed JSON: more after the layout's object");
        }
        return value;
    }

    private JsonValue value() throws ConfigException {
        if (in.atEnd()) {
            throw in.malformed(in.at(), "unexpected end of input: expected a value");
        }
        char c = in.peek();
        if (c == '{') {
            return object();
        }
        if (c == '[') {
            return array();
        }
        if (c == '"') {
            return new JsonString(in.string());
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            int start = in.at();
            JsonValue number = in.number(MAX_NUMBER_DIGITS);
            if (number == null) {
                throw new ConfigException(origin, where(start),
                        "beyond what the JSON reader takes: a number of more than " + MAX_NUMBER_DIGITS + " digits");
            }
            return number;
        }
        if (Character.isLetter(c)) {
            return in.word();
        }
        throw in.malformed(in.at(), "unexpected " + JsonScanner.shown(c) + ": expected a value");
    }

    private JsonObject object() throws ConfigException {
        int opened = enter();
        Map<String, JsonValue> fields = new LinkedHashMap<>();
        in.skipWhiteSpace();
        if (in.peek() == '}') {
            in.skip();
            return leave(new JsonObject(Collections.unmodifiableMap(fields)));
        }
        path.add("");
        while (true) {
            in.skipWhiteSpace();
            int nameAt = in.at();
            if (in.peek() != '"') {
                throw unexpected(opened, "object", "a field name in double quotes");
            }
            String name = in.string();
            path.set(path.size() - 1, name);
            if (fields.containsKey(name)) {
                throw new ConfigException(origin, path(), "set twice (" + in.location(nameAt) + ")");
            }
            in.skipWhiteSpace();
            if (in.peek() != ':') {
                throw unexpected(opened, "object", "':' after the field name");
            }
            in.skip();
            in.skipWhiteSpace();
            if (in.atEnd()) {
                throw unexpected(opened, "object", "a value");
            }
            fields.put(name, value());
            in.skipWhiteSpace();
            if (in.peek() == '}') {
                in.skip();
                path.remove(path.size() - 1);
                return leave(new JsonObject(Collections.unmodifiableMap(fields)));
            }
            if (in.peek() != ',') {
                throw unexpected(opened, "object", "',' or '}'");
            }
            in.skip();
        }
    }

    private JsonArray array() throws ConfigException {
        int opened = enter();
        List<JsonValue> items = new ArrayList<>();
        in.skipWhiteSpace();
        if (in.peek() == ']') {
            in.skip();
            return leave(new JsonArray(Collections.unmodifiableList(items)));
        }
        path.add(0);
        while (true) {
            in.skipWhiteSpace();
            if (in.atEnd()) {
                throw unexpected(opened, "array", "a value");
            }
            path.set(path.size() - 1, items.size());
            items.add(value());
            in.skipWhiteSpace();
            if (in.peek() == ']') {
                in.skip();
                path.remove(path.size() - 1);
                return leave(new JsonArray(Collections.unmodifiableList(items)));
            }
            if (in.peek() != ',') {
                throw unexpected(opened, "array", "',' or ']'");
            }
            in.skip();
        }
    }

    /** Steps over an opening bracket, counting the depth: where it opened. */
    private int enter() throws ConfigException {
        int opened = in.at();
        in.skip();
        if (++depth > MAX_DEPTH) {
            throw new ConfigException(origin, where(opened),
                    "beyond what the JSON reader takes: nesting deeper than " + MAX_DEPTH);
        }
        return opened;
    }

    private <T extends JsonValue> T leave(T value) {
        depth--;
        return value;
    }

    /** The error for what stands at the reader's position inside a container opened at {@code opened}. */
    private ConfigException unexpected(int opened, String container, String expected) {
        if (in.atEnd()) {
            return in.malformed(in.at(), "unexpected end of input: expected " + expected + " (the " + container
                    + " opened at " + in.location(opened) + ")");
        }
        return in.malformed(in.at(), "unexpected " + JsonScanner.shown(in.peek()) + ": expected " + expected);
    }

    /** The JSON path being read and the line and column of {@code at}, or only those at the top. */
    private String where(int at) {
        String path = path();
        return path.isEmpty() ? in.location(at) : path + " (" + in.location(at) + ")";
    }

    /** The JSON path being read, as ofinet's errors write it: {@code devices[0].eagerMaxSize}. */
    private String path() {
        String s = "";
        for (Object part : path) {
            s = part instanceof Integer index ? s + "[" + index + "]" : field(s, (String) part);
        }
        return s;
    }

    /**
     * The path of field {@code name} of the object at {@code parent} ("" at the top): joined with a
     * dot when the name is a plain word, else written in brackets as a JSON string
     * ({@code devices[0]["a.b"]}), so that an empty name or one with a dot or a bracket stays visible.
     */
    static String field(String parent, String name) {
        if (plainWord(name)) {
            return parent.isEmpty() ? name : parent + "." + name;
        }
        return parent + "[" + quoted(name) + "]";
    }

    private static boolean plainWord(String name) {
        return !name.isEmpty() && name.chars().allMatch(c -> c < 0x80 && (Character.isLetterOrDigit(c) || c == '_'));
    }

    /**
     * name as a JSON string: quotes and backslashes escaped, and as {@code \\uXXXX} what a terminal
     * would not show as itself (control characters, format characters such as bidi controls, the
     * line and paragraph separators).
     */
    private static String quoted(String name) {
        StringBuilder s = new StringBuilder("\"");
        for (char c : name.toCharArray()) {
            if (c == '"' || c == '\\') {
                s.append('\\').append(c);
            } else if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
                    || c == '\u2028' || c == '\u2029') {
                s.append(String.format("\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        return s.append('"').toString();
    }
}
