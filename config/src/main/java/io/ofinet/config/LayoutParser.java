package io.ofinet.config;

import io.ofinet.config.JsonValue.JsonArray;
import io.ofinet.config.JsonValue.JsonNumber;
import io.ofinet.config.JsonValue.JsonObject;
import io.ofinet.config.JsonValue.JsonString;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a layout document: {@link JsonReader} builds its {@link JsonValue}s, which are
 * walked by hand rather than bound to classes so that every error names the JSON path and the rule
 * in ofinet's words, and so that unknown fields, wrong types and duplicate keys are all refused.
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
        JsonValue document = JsonReader.read(json, origin);
        if (document == null) {
            throw new ConfigException(origin, "", "the layout is empty; expected an object with \"devices\"");
        }
        JsonObject root = requireObject(document, "(document)");
        checkFields(root, "", TOP_FIELDS);
        optionalText(root, "", "description");
        JsonValue devicesValue = root.get("devices");
        if (devicesValue == null) {
            throw new ConfigException(origin, "devices", "required field is missing");
        }
        JsonArray devices = requireArray(devicesValue, "devices");
        if (devices.size() == 0) {
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

    private FileDevice parseDevice(JsonValue value, String path, int index) throws ConfigException {
        JsonObject node = requireObject(value, path);
        checkFields(node, path, DEVICE_FIELDS, FORMER_FIELDS);
        String name = optionalText(node, path, "name").orElse("device" + index);
        optionalText(node, path, "description");

        JsonValue dataValue = node.get("dataRails");
        String dataPath = path + ".dataRails";
        if (dataValue == null) {
            throw new ConfigException(origin, dataPath, "required field is missing");
        }
        JsonArray dataNode = requireArray(dataValue, dataPath);
        if (dataNode.size() == 0) {
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
                JsonValue given = node.get(field);
                if (given == null) {
                    continue;
                }
                if (set != null) {
                    throw new ConfigException(origin, path + "." + field, "set twice, also as " + set
                            + " (its former name)");
                }
                set = field;
                settings.put(parameter, fromFile(parameter, given, path + "." + field));
            }
        }
        return new FileDevice(name, dataRails, controlRails, settings);
    }

    private <T> Setting<T> fromFile(Parameter<T> parameter, JsonValue value, String path)
            throws ConfigException {
        try {
            return new Setting<>(parameter, parameter.fromJson(value), Source.FILE, path);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(origin, path, e.getMessage(), e);
        }
    }

    private DataRailSpec parseDataRail(JsonValue value, String path, int index) throws ConfigException {
        JsonObject node = requireObject(value, path);
        checkFields(node, path, DATA_RAIL_FIELDS);
        String provider = requiredText(node, path, "provider");
        String domain = requiredText(node, path, "domain");
        Optional<String> srcAddr = optionalText(node, path, "srcAddr");
        return new DataRailSpec(index, provider, domain, srcAddr);
    }

    private List<ControlRailSpec> parseControlRails(JsonValue value, String path, int dataRails)
            throws ConfigException {
        List<ControlRailSpec> result = new ArrayList<>();
        if (value == null) {
            // The default: control rail i on data rail i, one per data rail.
            for (int i = 0; i < dataRails; i++) {
                result.add(new ControlRailSpec(i, i));
            }
            return result;
        }
        JsonArray node = requireArray(value, path);
        if (node.size() == 0) {
            throw new ConfigException(origin, path, "a device needs at least one control rail"
                    + " (leave the field out for one control rail per data rail)");
        }
        if (node.size() > RailLayout.MAX_CONTROL_RAILS) {
            throw new ConfigException(origin, path, "at most " + RailLayout.MAX_CONTROL_RAILS
                    + " control rails per device, found " + node.size());
        }
        for (int i = 0; i < node.size(); i++) {
            String railPath = path + "[" + i + "]";
            JsonObject rail = requireObject(node.get(i), railPath);
            checkFields(rail, railPath, CONTROL_RAIL_FIELDS);
            JsonValue dataRailValue = rail.get("dataRail");
            String dataRailPath = railPath + ".dataRail";
            if (dataRailValue == null) {
                throw new ConfigException(origin, dataRailPath, "required field is missing");
            }
            if (!(dataRailValue instanceof JsonNumber dataRail) || !dataRail.integral()) {
                throw new ConfigException(origin, dataRailPath,
                        "expected an integer, found " + JsonValue.describe(dataRailValue));
            }
            if (!dataRail.integralWithin(0, dataRails - 1)) {
                throw new ConfigException(origin, dataRailPath, "names data rail " + dataRail.integer()
                        + ", but the device has data rails 0.." + (dataRails - 1));
            }
            result.add(new ControlRailSpec(i, dataRail.integer().intValue()));
        }
        return result;
    }

    private void checkFields(JsonObject node, String path, Set<String> known) throws ConfigException {
        checkFields(node, path, known, Set.of());
    }

    /** As {@link #checkFields(JsonObject, String, Set)}, accepting {@code former} names too without listing them. */
    private void checkFields(JsonObject node, String path, Set<String> known, Set<String> former) throws ConfigException {
        for (String name : node.fields().keySet()) {
            if (!known.contains(name) && !former.contains(name)) {
                throw new ConfigException(origin, JsonReader.field(path, name),
                        "unknown field; known fields here are " + String.join(", ", sorted(known)));
            }
        }
    }

    private static List<String> sorted(Set<String> names) {
        List<String> list = new ArrayList<>(names);
        list.sort(null);
        return list;
    }

    private JsonObject requireObject(JsonValue value, String path) throws ConfigException {
        if (!(value instanceof JsonObject object)) {
            throw new ConfigException(origin, path, "expected an object, found " + JsonValue.describe(value));
        }
        return object;
    }

    private JsonArray requireArray(JsonValue value, String path) throws ConfigException {
        if (!(value instanceof JsonArray array)) {
            throw new ConfigException(origin, path, "expected an array, found " + JsonValue.describe(value));
        }
        return array;
    }

    private String requiredText(JsonObject node, String path, String field) throws ConfigException {
        return optionalText(node, path, field).orElseThrow(() ->
                new ConfigException(origin, JsonReader.field(path, field), "required field is missing"));
    }

    private Optional<String> optionalText(JsonObject node, String path, String field)
            throws ConfigException {
        JsonValue value = node.get(field);
        if (value == null) {
            return Optional.empty();
        }
        if (!(value instanceof JsonString text)) {
            throw new ConfigException(origin, JsonReader.field(path, field),
                    "expected a string, found " + JsonValue.describe(value));
        }
        if (text.text().isBlank()) {
            throw new ConfigException(origin, JsonReader.field(path, field), "must not be empty");
        }
        return Optional.of(text.text());
    }
}
