package io.ofinet.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.ofinet.config.JsonValue.JsonArray;
import io.ofinet.config.JsonValue.JsonBoolean;
import io.ofinet.config.JsonValue.JsonNull;
import io.ofinet.config.JsonValue.JsonNumber;
import io.ofinet.config.JsonValue.JsonObject;
import io.ofinet.config.JsonValue.JsonString;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * ofinet's JSON reader: what it reads, what it refuses and how it says so, and the same verdict as
 * jackson-core's strict parser on many thousands of documents, mutations of valid ones included.
 */
class JsonReaderTest {
    private static final JsonFactory JACKSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private static JsonValue read(String text) throws ConfigException {
        return JsonReader.read(text, "t.json");
    }

    private static ConfigException refused(String text) {
        return assertThrows(ConfigException.class, () -> read(text), text);
    }

    @Test
    void readsEveryKindOfValue() throws ConfigException {
        JsonValue v = read(" {\"a\": [1, -0, 2.5, 1e3, -7E-2, 123456789012345678901234567890],"
                + " \"b\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\","
                + " \"c\": true, \"d\": false, \"e\": null, \"\": {}, \"f\": []}\n");
        JsonObject o = (JsonObject) v;
        assertEquals(List.of("a", "b", "c", "d", "e", "", "f"), List.copyOf(o.fields().keySet()),
                "the document's order");
        JsonArray a = (JsonArray) o.get("a");
        assertEquals(new JsonNumber(BigInteger.ONE), a.get(0));
        assertEquals(new JsonNumber(BigInteger.ZERO), a.get(1));
        assertEquals(new JsonNumber(null), a.get(2));
        assertEquals(new JsonNumber(null), a.get(3));
        assertEquals(new JsonNumber(null), a.get(4));
        assertEquals(new JsonNumber(new BigInteger("123456789012345678901234567890")), a.get(5));
        assertEquals(new JsonString("x\"\\/\b\f\n\r\té\uD83D\uDE00"), o.get("b"));
        assertEquals(new JsonBoolean(true), o.get("c"));
        assertEquals(new JsonBoolean(false), o.get("d"));
        assertEquals(new JsonNull(), o.get("e"));
        assertEquals(new JsonObject(Map.of()), o.get(""));
        assertEquals(new JsonArray(List.of()), o.get("f"));
    }

    @Test
    void aDocumentOfWhiteSpaceHasNoValue() throws ConfigException {
        assertNull(read(""));
        assertNull(read(" \t\r\n "));
    }

    @Test
    void errorsNameWhatAndWhere() {
        assertEquals("t.json: line 2, column 3: malformed JSON: unexpected '}': expected a field name in double quotes",
                refused("{\"a\": 1,\n  }").getMessage());
        assertEquals("t.json: line 1, column 4: malformed JSON: unexpected ']': expected a value",
                refused("[1,]").getMessage());
        assertEquals("t.json: line 1, column 8: malformed JSON: unexpected end of input: expected ',' or '}'"
                + " (the object opened at line 1, column 1)", refused("{\"a\": 1").getMessage());
        assertEquals("t.json: line 3, column 1: malformed JSON: unexpected '/': expected a value",
                refused("[\r\n1,\r/* no */ 2]").getMessage());
        assertEquals("t.json: line 1, column 2: malformed JSON: a number does not start with 0 unless it is 0",
                refused("[01]").getMessage());
        assertEquals("t.json: line 1, column 3: malformed JSON: unexpected 'x' after a number",
                refused("[1x]").getMessage());
        assertEquals("t.json: line 1, column 2: malformed JSON: a number needs a digit after its decimal point",
                refused("[1.]").getMessage());
        assertEquals("t.json: line 1, column 2: malformed JSON: unknown word 'True': expected a value (true, false and"
                + " null are written in lower case)", refused("[True]").getMessage());
        assertEquals("t.json: line 1, column 4: malformed JSON: character U+000A inside a string: control characters"
                + " are written escaped", refused("[\"a\nb\"]").getMessage());
        assertEquals("t.json: line 1, column 4: malformed JSON: unknown escape \\x in a string",
                refused("[\"a\\x\"]").getMessage());
        assertEquals("t.json: line 1, column 2: malformed JSON: \\u needs four hexadecimal digits",
                refused("\"\\u12g4\"").getMessage());
        assertEquals("t.json: line 1, column 2: malformed JSON: unexpected end of input inside the string that starts"
                + " here", refused("[\"abc").getMessage());
        assertEquals("t.json: line 1, column 5: malformed JSON: more after the layout's object",
                refused("{}  {}").getMessage());
        assertEquals("t.json: a.b[1].c: set twice (line 1, column 26)",
                refused("{\"a\": {\"b\": [0, {\"c\": 1, \"c\": 2}]}}").getMessage());
    }

    @Test
    void aNameThatIsNoPlainWordIsQuotedInThePath() {
        assertEquals("t.json: a[\"\"].c: set twice (line 1, column 21)",
                refused("{\"a\": {\"\": {\"c\": 1, \"c\": 2}}}").getMessage());
        assertEquals("t.json: [\"a.b\"][\"x\\\"y\\u0001\"].c_2: set twice (line 1, column 35)",
                refused("{\"a.b\": {\"x\\\"y\\u0001\": {\"c_2\": 1, \"c_2\": 2}}}").getMessage());
        // What a terminal would not show as itself: DEL, a C1 control, a bidi override, a line separator.
        assertEquals("t.json: [\"a\\u007f\\u0085\\u202e\\u2028\"].c: set twice (line 1, column 20)",
                refused("{\"a\u007f\u0085\u202e\u2028\": {\"c\": 1, \"c\": 2}}").getMessage());
    }

    @Test
    void whatJsonLeavesOutIsRefused() {
        for (String text : List.of("[\"a\u001fb\"]", "[\"\\u00\uff10\uff10\"]", "[\u00a01]", "[\"\\'\"]", "[1,]",
                "{\"a\":1,}", "[NaN]", "[Infinity]", "[+1]", "[.5]", "['a']", "{a: 1}", "[1 2]", "[\u0000]",
                "\ufeff[]", "[1]/", "[true\u0001]")) {
            refused(text);
        }
    }

    @Test
    void anUnknownWordIsShownAsFarAsItsLettersGo() {
        assertEquals("t.json: line 1, column 2: malformed JSON: unknown word 't': expected a value (true, false and"
                + " null are written in lower case)", refused("[t\u0001rue]").getMessage());
    }

    @Test
    void limitsNameThePathAndTheLimit() throws ConfigException {
        String deepest = "[".repeat(JsonReader.MAX_DEPTH) + "]".repeat(JsonReader.MAX_DEPTH);
        assertTrue(read(deepest) instanceof JsonArray);
        assertEquals("t.json: " + "[0]".repeat(1000) + " (line 1, column 1001): beyond what the JSON reader takes:"
                + " nesting deeper than 1000", refused("[".repeat(1001) + "]".repeat(1001)).getMessage());
        String longest = "9".repeat(JsonReader.MAX_NUMBER_DIGITS);
        assertEquals(new JsonNumber(new BigInteger("-" + longest)), read("-" + longest), "the sign is no digit");
        assertEquals(new JsonNumber(null), read("1." + longest.substring(1)));
        assertEquals("t.json: x (line 1, column 7): beyond what the JSON reader takes: a number of more than 1000"
                + " digits", refused("{\"x\": -9" + longest + "}").getMessage());
        assertEquals("t.json: line 1, column 1: beyond what the JSON reader takes: a number of more than 1000 digits",
                refused("1" + longest).getMessage(), "at the top, no path");
        // Refused before it is converted: a conversion of 3,000,000 digits takes minutes, the scan
        // milliseconds (0.7 s interpreted), and the test stops waiting at the bound.
        String huge = "[" + "9".repeat(3_000_000) + "]";
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> refused(huge), "a long number is converted");
    }

    /** Valid documents, and each mutated many times, read by both readers: the same verdict, the same values. */
    @Test
    void agreesWithJacksonOnValidAndMutatedDocuments() throws IOException {
        Random random = new Random(20261130);
        String alphabet = "{}[],:\"\\ \n\t\r-+.eE0123456789abfnrtu/xTZ'\u00e9\u0001\u001f\u0000\u00a0\uff10\ud83d"
                + "\ude00\u2028\ufeff";
        int refusedByBoth = 0;
        int readByBoth = 0;
        for (int d = 0; d < 400; d++) {
            String document = randomValue(random, 0);
            for (int m = 0; m < 50; m++) {
                StringBuilder s = new StringBuilder(document);
                int edits = m == 0 ? 0 : 1 + random.nextInt(3);
                for (int e = 0; e < edits && s.length() > 0; e++) {
                    int at = random.nextInt(s.length() + 1);
                    char c = alphabet.charAt(random.nextInt(alphabet.length()));
                    switch (random.nextInt(3)) {
                        case 0 -> s.insert(at, c);
                        case 1 -> s.deleteCharAt(Math.min(at, s.length() - 1));
                        default -> s.setCharAt(Math.min(at, s.length() - 1), c);
                    }
                }
                String text = s.toString();
                JsonValue expected = jackson(text);
                JsonValue got;
                try {
                    got = read(text);
                } catch (ConfigException e) {
                    assertNull(expected, "jackson-core read what ofinet refused (" + e.getMessage() + "): " + text);
                    refusedByBoth++;
                    continue;
                }
                assertEquals(expected, got, "both read, with different values: " + text);
                assertEquals(String.valueOf(expected), String.valueOf(got), "both read, in another order: " + text);
                readByBoth++;
            }
        }
        assertTrue(refusedByBoth > 5000 && readByBoth > 2000, refusedByBoth + " refused, " + readByBoth + " read");
    }

    /** What jackson-core reads from {@code text} with the reader's rules, or null where it refuses it. */
    private static JsonValue jackson(String text) throws IOException {
        try (JsonParser parser = JACKSON.createParser(text)) {
            if (parser.nextToken() == null) {
                return null;
            }
            JsonValue value = fromJackson(parser);
            return parser.nextToken() == null ? value : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static JsonValue fromJackson(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT -> {
                Map<String, JsonValue> fields = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    fields.put(name, fromJackson(parser));
                }
                return new JsonObject(fields);
            }
            case START_ARRAY -> {
                List<JsonValue> items = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    items.add(fromJackson(parser));
                }
                return new JsonArray(items);
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

    /** A random valid JSON value of at most a few levels. */
    private static String randomValue(Random random, int depth) {
        int kind = random.nextInt(depth >= 5 ? 5 : 7);
        String ws = List.of("", " ", "\n", "\t", "\r\n").get(random.nextInt(5));
        return ws + switch (kind) {
            case 0 -> List.of("0", "-0", "12", "-3.25", "1e9", "2E-3", "99999999999999999999", "7.0e+1")
                    .get(random.nextInt(8));
            case 1 -> List.of("\"\"", "\"tcp;ofi_rxm\"", "\"a\\u0041\\n\"", "\"\\\"q\\\\\"", "\"é\"")
                    .get(random.nextInt(5));
            case 2 -> "true";
            case 3 -> "false";
            case 4 -> "null";
            case 5 -> {
                StringBuilder s = new StringBuilder("[");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    s.append(i > 0 ? "," : "").append(randomValue(random, depth + 1));
                }
                yield s.append(ws).append(']').toString();
            }
            default -> {
                StringBuilder s = new StringBuilder("{");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    s.append(i > 0 ? "," : "").append(ws).append("\"k").append(i).append("\":")
                            .append(randomValue(random, depth + 1));
                }
                yield s.append(ws).append('}').toString();
            }
        } + ws;
    }
}
