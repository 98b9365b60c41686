package io.ofinet.config;

import io.ofinet.config.JsonValue.JsonBoolean;
import io.ofinet.config.JsonValue.JsonNull;
import io.ofinet.config.JsonValue.JsonNumber;
import java.math.BigInteger;

/**
 * The tokens of a JSON text for {@link JsonReader}: white space, strings, numbers and the words true,
 * false and null, read at a position that moves forward, and errors that say where (line and
 * column, from 1).
 */
final class JsonScanner {
    private final String text;
    private final String origin;
    /** Where the scanner is, an index into {@link #text}. */
    private int at;

    JsonScanner(String text, String origin) {
        this.text = text;
        this.origin = origin;
    }

    /** Whether the scanner has read all of the text. */
    boolean atEnd() {
        return at == text.length();
    }

    /** The character at the scanner's position, or 0 at the end. */
    char peek() {
        return at < text.length() ? text.charAt(at) : 0;
    }

    /** Steps over one character. */
    void skip() {
        at++;
    }

    /** Where the scanner is, an index into the text. */
    int at() {
        return at;
    }

    void skipWhiteSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    /** A string's text, the scanner on its opening quote; it stops after the closing one. */
    String string() throws ConfigException {
        int opened = at++;
        StringBuilder s = null;
        int from = at;
        while (true) {
            if (at == text.length()) {
                throw malformed(opened, "unexpected end of input inside the string that starts here");
            }
            char c = text.charAt(at);
            if (c == '"') {
                String done = s == null ? text.substring(from, at) : s.append(text, from, at).toString();
                at++;
                return done;
            }
            if (c < 0x20) {
                throw malformed(at, shown(c) + " inside a string: control characters are written escaped");
            }
            if (c == '\\') {
                if (s == null) {
                    s = new StringBuilder();
                }
                s.append(text, from, at);
                s.append(escape());
                from = at;
            } else {
                at++;
            }
        }
    }

    /** The character an escape stands for, the scanner on its backslash; it stops after the escape. */
    private char escape() throws ConfigException {
        int start = at++;
        if (at == text.length()) {
            throw malformed(start, "unexpected end of input in an escape");
        }
        char c = text.charAt(at++);
        switch (c) {
            case '"', '\\', '/' -> {
                return c;
            }
            case 'b' -> {
                return '\b';
            }
            case 'f' -> {
                return '\f';
            }
            case 'n' -> {
                return '\n';
            }
            case 'r' -> {
                return '\r';
            }
            case 't' -> {
                return '\t';
            }
            case 'u' -> {
                int code = 0;
                for (int i = 0; i < 4; i++) {
                    int digit = at < text.length() ? Character.digit(text.charAt(at), 16) : -1;
                    if (digit < 0 || text.charAt(at) > 'f') {
                        throw malformed(start, "\\u needs four hexadecimal digits");
                    }
                    code = code * 16 + digit;
                    at++;
                }
                return (char) code;
            }
            default -> throw malformed(start, "unknown escape \\" + (c < 0x20 || c > 0x7e ? shown(c) : c)
                    + " in a string");
        }
    }

    /**
     * A number as JSON writes it: an integer kept exactly, a fraction or an exponent as such; null
     * when it has more than {@code maxDigits} digits, which are then not converted (a conversion's
     * time grows with the square of the length), the scanner standing after them.
     */
    JsonNumber number(int maxDigits) throws ConfigException {
        int start = at;
        if (peek() == '-') {
            at++;
        }
        int digits = digits();
        int all = digits;
        if (digits == 0) {
            throw malformed(start, "a number needs a digit after its sign");
        }
        if (digits > 1 && text.charAt(at - digits) == '0') {
            throw malformed(start, "a number does not start with 0 unless it is 0");
        }
        boolean integral = true;
        if (peek() == '.') {
            at++;
            integral = false;
            int fraction = digits();
            if (fraction == 0) {
                throw malformed(start, "a number needs a digit after its decimal point");
            }
            all += fraction;
        }
        if (peek() == 'e' || peek() == 'E') {
            at++;
            integral = false;
            if (peek() == '+' || peek() == '-') {
                at++;
            }
            int exponent = digits();
            if (exponent == 0) {
                throw malformed(start, "a number needs a digit in its exponent");
            }
            all += exponent;
        }
        if (at < text.length() && !delimiter(text.charAt(at))) {
            throw malformed(at, "unexpected " + shown(text.charAt(at)) + " after a number");
        }
        if (all > maxDigits) {
            return null;
        }
        return new JsonNumber(integral ? new BigInteger(text.substring(start, at)) : null);
    }

    private int digits() {
        int from = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at - from;
    }

    /** true, false or null: a run of letters and digits, refused when it is none of them. */
    JsonValue word() throws ConfigException {
        int start = at;
        while (at < text.length() && Character.isLetterOrDigit(text.charAt(at))) {
            at++;
        }
        String word = text.substring(start, at);
        return switch (word) {
            case "true" -> new JsonBoolean(true);
            case "false" -> new JsonBoolean(false);
            case "null" -> new JsonNull();
            default -> throw malformed(start, "unknown word '" + (word.length() > 40 ? word.substring(0, 40) + "..."
                    : word) + "': expected a value (true, false and null are written in lower case)");
        };
    }

    /** Whether {@code c} may follow a number or a word: white space, or what closes or separates. */
    private static boolean delimiter(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}' || c == ':'
                || c == '"' || c == '[' || c == '{';
    }

    /** A malformed JSON error at the index {@code where}. */
    ConfigException malformed(int where, String what) {
        return new ConfigException(origin, location(where), "malformed JSON: " + what);
    }

    /** "line L, column C" of the index {@code where}, both from 1; "\r\n", "\n" and "\r" end a line. */
    String location(int where) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < where; i++) {
            char c = text.charAt(i);
            if (c == '\n' || (c == '\r' && (i + 1 >= text.length() || text.charAt(i + 1) != '\n'))) {
                line++;
                lineStart = i + 1;
            }
        }
        return "line " + line + ", column " + (where - lineStart + 1);
    }

    /** A character as an error shows it: 'x', or its code where it does not print. */
    static String shown(char c) {
        return c > 0x20 && c < 0x7f ? "'" + c + "'" : "character U+" + String.format("%04X", (int) c);
    }
}
