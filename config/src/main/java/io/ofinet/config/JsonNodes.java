package io.ofinet.config;

import com.fasterxml.jackson.databind.JsonNode;

/** Small helpers for naming JSON nodes in error messages. */
final class JsonNodes {
    private JsonNodes() {
    }

    /** "a string", "an integer", "a number", "an object", ... for error messages. */
    static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        switch (node.getNodeType()) {
            case STRING:
                return "a string";
            case NUMBER:
                return node.isIntegralNumber() ? "an integer" : "a number with a decimal point or an exponent";
            case BOOLEAN:
                return "a boolean";
            case ARRAY:
                return "an array";
            case OBJECT:
                return "an object";
            case NULL:
                return "null";
            default:
                return node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
