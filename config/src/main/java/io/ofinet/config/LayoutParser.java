package io.ofinet.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a layout document. The tree is walked by hand rather than bound to classes so that every
 * error names the JSON path and the rule in ofinet's words, and so that unknown fields, wrong
 * types and duplicate keys are all refused.
 */
final class LayoutParser {
    private static final Set<String> TOP_FIELDS = Set.of("description", "devices");
    private static final Set<String> DATA_RAIL_FIELDS = Set.of("provider", "domain", "srcAddr");
    private static final Set<String> CONTROL_RAIL_FIELDS = Set.of("dataRail");
    private static final Set<String> DEVICE_FIELDS;
    /** Former names of parameters: accepted in a device, not listed among its known fields. */
    private static final Set<String> FORMER_FIELDS;

    static {
        Set<String> fields = new LinkedHashSet<>(List.of("name", "description", "dataRails",
                "controlRails"));
        Set<String> former = new LinkedHashSet<>();
        for (Parameter<?> parameter : Parameters.ALL) {
            fields.add(parameter.name());
            parameter.formerName().ifPresent(former::add);
        }
        DEVICE_FIELDS = Set.copyOf(fields);
        FORMER_FIELDS = Set.copyOf(former);
    }

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    private final String origin;

    private LayoutParser(String origin) {
        this.origin = origin;
    }

    /** A device as the file states it: rails and the parameters the file sets. */
    record FileDevice(String name, List<DataRailSpec> dataRails, List<ControlRailSpec> controlRails,
            Map<Parameter<?>, Setting<?>> settings) {
    }

    static List<FileDevice> parse(String json, String origin) throws ConfigException {
        return new LayoutParser(origin).parseDocument(json);
    }

    private List<FileDevice> parseDocument(String json) throws ConfigException {
        JsonNode root;
        try (JsonParser parser = MAPPER.createParser(json)) {
            try {
                root = MAPPER.readTree(parser);
            } catch (JsonProcessingException e) {
                throw JsonErrors.of(origin, e, parser);
            }
        } catch (IOException e) {
            throw new ConfigException(origin, "", "cannot read the layout: " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode()) {
            throw new ConfigException(origin, "", "the layout is empty; expected an object with \"devices\"");
        }
        requireObject(root, "(document)");
        checkFields(root, "", TOP_FIELDS);
        optionalText(root, "", "description");
        JsonNode devices = root.get("devices");
        if (devices == null) {
            throw new ConfigException(origin, "devices", "required field is missing");
        }
        requireArray(devices, "devices");
        if (devices.isEmpty()) {
            throw new ConfigException(origin, "devices", "at least one device is required");
        }
        List<FileDevice> result = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < devices.size(); i++) {
            FileDevice device = parseDevice(devices.get(i), "devices[" + i + "]", i);
            if (!names.add(device.name())) {
                throw new ConfigException(origin, "devices[" + i + "].name",
                        "duplicate device name \"" + device.name() + "\"");
            }
            result.add(device);
        }
        return result;
    }

    private FileDevice parseDevice(JsonNode node, String path, int index) throws ConfigException {
        requireObject(node, path);
        checkFields(node, path, DEVICE_FIELDS, FORMER_FIELDS);
        String name = optionalText(node, path, "name").orElse("device" + index);
        optionalText(node, path, "description");

        JsonNode dataNode = node.get("dataRails");
        String dataPath = path + ".dataRails";
        if (dataNode == null) {
            throw new ConfigException(origin, dataPath, "required field is missing");
        }
        requireArray(dataNode, dataPath);
        if (dataNode.isEmpty()) {
            throw new ConfigException(origin, dataPath, "a device needs at least one data rail");
        }
        if (dataNode.size() > RailLayout.MAX_DATA_RAILS) {
            throw new ConfigException(origin, dataPath, "at most " + RailLayout.MAX_DATA_RAILS
                    + " data rails per device, found " + dataNode.size());
        }
        List<DataRailSpec> dataRails = new ArrayList<>();
        for (int i = 0; i < dataNode.size(); i++) {
            dataRails.add(parseDataRail(dataNode.get(i), dataPath + "[" + i + "]", i));
        }

        List<ControlRailSpec> controlRails = parseControlRails(node.get("controlRails"),
                path + ".controlRails", dataRails.size());

        Map<Parameter<?>, Setting<?>> settings = new LinkedHashMap<>();
        for (Parameter<?> parameter : Parameters.ALL) {
            String set = null;
            for (String field : parameter.layoutNames()) {
                JsonNode value = node.get(field);
                if (value == null) {
                    continue;
                }
                if (set != null) {
                    throw new ConfigException(origin, path + "." + field, "set twice, also as " + set
                            + " (its former name)");
                }
                set = field;
                settings.put(parameter, fromFile(parameter, value, path + "." + field));
            }
        }
        return new FileDevice(name, dataRails, controlRails, settings);
    }

    private <T> Setting<T> fromFile(Parameter<T> parameter, JsonNode value, String path)
            throws ConfigException {
        try {
            return new Setting<>(parameter, parameter.fromJson(value), Source.FILE, path);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(origin, path, e.getMessage(), e);
        }
    }

    private DataRailSpec parseDataRail(JsonNode node, String path, int index) throws ConfigException {
        requireObject(node, path);
        checkFields(node, path, DATA_RAIL_FIELDS);
        String provider = requiredText(node, path, "provider");
        String domain = requiredText(node, path, "domain");
        Optional<String> srcAddr = optionalText(node, path, "srcAddr");
        return new DataRailSpec(index, provider, domain, srcAddr);
    }

    private List<ControlRailSpec> parseControlRails(JsonNode node, String path, int dataRails)
            throws ConfigException {
        List<ControlRailSpec> result = new ArrayList<>();
        if (node == null) {
            // The default: control rail i on data rail i, one per data rail.
            for (int i = 0; i < dataRails; i++) {
                result.add(new ControlRailSpec(i, i));
            }
            return result;
        }
        requireArray(node, path);
        if (node.isEmpty()) {
            throw new ConfigException(origin, path, "a device needs at least one control rail"
                    + " (leave the field out for one control rail per data rail)");
        }
        if (node.size() > RailLayout.MAX_CONTROL_RAILS) {
            throw new ConfigException(origin, path, "at most " + RailLayout.MAX_CONTROL_RAILS
                    + " control rails per device, found " + node.size());
        }
        for (int i = 0; i < node.size(); i++) {
            String railPath = path + "[" + i + "]";
            JsonNode rail = node.get(i);
            requireObject(rail, railPath);
            checkFields(rail, railPath, CONTROL_RAIL_FIELDS);
            JsonNode dataRail = rail.get("dataRail");
            String dataRailPath = railPath + ".dataRail";
            if (dataRail == null) {
                throw new ConfigException(origin, dataRailPath, "required field is missing");
            }
            if (!dataRail.isIntegralNumber()) {
                throw new ConfigException(origin, dataRailPath,
                        "expected an integer, found " + JsonNodes.describe(dataRail));
            }
            if (!dataRail.canConvertToInt() || dataRail.intValue() < 0
                    || dataRail.intValue() >= dataRails) {
                throw new ConfigException(origin, dataRailPath, "names data rail " + dataRail.asText()
                        + ", but the device has data rails 0.." + (dataRails - 1));
            }
            result.add(new ControlRailSpec(i, dataRail.intValue()));
        }
        return result;
    }

    private void checkFields(JsonNode node, String path, Set<String> known) throws ConfigException {
        checkFields(node, path, known, Set.of());
    }

    /** As {@link #checkFields(JsonNode, String, Set)}, accepting {@code former} names too without listing them. */
    private void checkFields(JsonNode node, String path, Set<String> known, Set<String> former) throws ConfigException {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name) && !former.contains(name)) {
                String fieldPath = path.isEmpty() ? name : path + "." + name;
                throw new ConfigException(origin, fieldPath,
                        "unknown field; known fields here are " + String.join(", ", sorted(known)));
            }
        }
    }

    private static List<String> sorted(Set<String> names) {
        List<String> list = new ArrayList<>(names);
        list.sort(null);
        return list;
    }

    private void requireObject(JsonNode node, String path) throws ConfigException {
        if (!node.isObject()) {
            throw new ConfigException(origin, path, "expected an object, found " + JsonNodes.describe(node));
        }
    }

    private void requireArray(JsonNode node, String path) throws ConfigException {
        if (!node.isArray()) {
            throw new ConfigException(origin, path, "expected an array, found " + JsonNodes.describe(node));
        }
    }

    private String requiredText(JsonNode node, String path, String field) throws ConfigException {
        return optionalText(node, path, field).orElseThrow(() ->
                new ConfigException(origin, join(path, field), "required field is missing"));
    }

    private Optional<String> optionalText(JsonNode node, String path, String field)
            throws ConfigException {
        JsonNode value = node.get(field);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw new ConfigException(origin, join(path, field),
                    "expected a string, found " + JsonNodes.describe(value));
        }
        if (value.textValue().isBlank()) {
            throw new ConfigException(origin, join(path, field), "must not be empty");
        }
        return Optional.of(value.textValue());
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }
}
