package io.ofinet.config;

import java.util.Map;
import java.util.Properties;

/** Test helpers: small layouts and environments. */
final class Layouts {
    private Layouts() {
    }

    static final ConfigEnvironment EMPTY_ENV = ConfigEnvironment.of(Map.of(), new Properties());

    /** A one-device layout whose device object has the given extra members (JSON text). */
    static String device(String extraMembers) {
        return "{\"devices\": [{\"dataRails\": [{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"lo\"}]"
                + (extraMembers.isEmpty() ? "" : ", " + extraMembers) + "}]}";
    }

    static RailLayout parse(String json) throws ConfigException {
        return ConfigLoader.parse(json, "test.json", EMPTY_ENV);
    }

    static ConfigEnvironment env(Map<String, String> env) {
        return ConfigEnvironment.of(env, new Properties());
    }

    static ConfigEnvironment env(Map<String, String> env, Map<String, String> properties) {
        Properties props = new Properties();
        props.putAll(properties);
        return ConfigEnvironment.of(env, props);
    }
}
