package io.ofinet.rdma;

import io.ofinet.config.ConfigEnvironment;
import io.ofinet.config.ConfigLoader;
import io.ofinet.config.DeviceSpec;
import java.util.Map;
import java.util.Properties;

/** Device specs for tests. */
final class Layouts {
    private Layouts() {
    }

    /** A device with {@code rails} data rails of {@code provider} on {@code domains[r]}, one control rail each. */
    static DeviceSpec device(String provider, String[] domains, String extraMembers) throws Exception {
        StringBuilder rails = new StringBuilder();
        for (int r = 0; r < domains.length; r++) {
            rails.append(r == 0 ? "" : ", ").append("{\"provider\": \"").append(provider).append("\", \"domain\": \"")
                    .append(domains[r]).append("\"}");
        }
        String json = "{\"devices\": [{\"name\": \"test\", \"dataRails\": [" + rails + "]"
                + (extraMembers.isEmpty() ? "" : ", " + extraMembers) + "}]}";
        return ConfigLoader.parse(json, "test layout", ConfigEnvironment.of(Map.of(), new Properties()))
                .devices().get(0);
    }

    /** {@code rails} in-memory rails, mem0.. */
    static DeviceSpec mem(int rails, String extraMembers) throws Exception {
        String[] domains = new String[rails];
        for (int r = 0; r < rails; r++) {
            domains[r] = "mem" + r;
        }
        return device("mem", domains, extraMembers);
    }
}
