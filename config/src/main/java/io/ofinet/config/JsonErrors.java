package io.ofinet.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.util.ArrayList;
import java.util.List;

/**
 * A layout the JSON reader refused, in ofinet's words: where (the JSON path where the reader knows
 * it, with line and column) and what, without the reader's own class and feature names.
 */
final class JsonErrors {
    private JsonErrors() {
    }

    /** The error for {@code e}, which {@code parser} threw while reading the layout {@code origin}. */
    static ConfigException of(String origin, JsonProcessingException e, JsonParser parser) {
        JsonLocation at = e.getLocation() != null ? e.getLocation() : parser.currentLocation();
        String line = at == null || at.getLineNr() < 0 ? "" : "line " + at.getLineNr() + ", column " + at.getColumnNr();
        String path = path(parser.getParsingContext());
        String text = String.valueOf(e.getOriginalMessage());
        if (text.startsWith("Duplicate field ")) {
            return new ConfigException(origin, path, "set twice" + (line.isEmpty() ? "" : " (" + line + ")"), e);
        }
        if (e instanceof StreamConstraintsException) {
            // e.g. "Number value length (1001) exceeds the maximum allowed (1000, from `...`)"
            String limit = text.replaceAll(", from `[^`]*`", "");
            return new ConfigException(origin, path.isEmpty() ? line : path + " (" + line + ")",
                    "beyond what the JSON reader takes: " + limit, e);
        }
        if (text.startsWith("Trailing token")) {
            return new ConfigException(origin, line, "malformed JSON: more after the layout's object", e);
        }
        String plain = text.replaceAll("\\(start marker at \\[Source: [^;]*; line: (\\d+), column: (\\d+)\\]\\)",
                "(opened at line $1, column $2)");
        return new ConfigException(origin, line, "malformed JSON: " + plain, e);
    }

    /** The JSON path of the reader's position, as ofinet's errors write it: {@code devices[0].eagerMaxSize}. */
    static String path(JsonStreamContext context) {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                parts.add(0, "[" + Math.max(0, c.getCurrentIndex()) + "]");
            } else if (c.getCurrentName() != null) {
                parts.add(0, c.getCurrentName());
            }
        }
        StringBuilder path = new StringBuilder();
        for (String part : parts) {
            if (!part.startsWith("[") && path.length() > 0) {
                path.append('.');
            }
            path.append(part);
        }
        return path.toString();
    }
}
