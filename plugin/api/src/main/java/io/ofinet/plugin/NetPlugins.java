package io.ofinet.plugin;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds plugins with {@link ServiceLoader}. A framework picks one by name, as NCCL does with
 * {@code NCCL_NET_PLUGIN}: the system property {@code ofinet.plugin}, else the environment
 * variable {@code OFINET_PLUGIN}, else the only one found.
 */
public final class NetPlugins {
    /** System property naming the plugin. */
    public static final String PROPERTY = "ofinet.plugin";
    /** Environment variable naming the plugin. */
    public static final String ENV = "OFINET_PLUGIN";

    private NetPlugins() {
    }

    /** The names of the plugins on the class path. */
    public static List<String> available() {
        List<String> names = new ArrayList<>();
        for (NetPlugin plugin : ServiceLoader.load(NetPlugin.class)) {
            names.add(plugin.name());
        }
        return names;
    }

    /** The plugin named by the system property or the environment, or the only one found. */
    public static NetPlugin load() throws NetException {
        String name = System.getProperty(PROPERTY);
        if (name == null || name.isBlank()) {
            name = System.getenv(ENV);
        }
        return load(name == null || name.isBlank() ? null : name.trim());
    }

    /**
     * The plugin called {@code name}; with null, the only one found.
     *
     * @throws NetException INVALID_USAGE when none or several match, listing what was found
     */
    public static NetPlugin load(String name) throws NetException {
        List<NetPlugin> found = new ArrayList<>();
        for (NetPlugin plugin : ServiceLoader.load(NetPlugin.class)) {
            if (name == null || plugin.name().equals(name)) {
                found.add(plugin);
            }
        }
        if (found.size() == 1) {
            return found.get(0);
        }
        List<String> names = available();
        if (found.isEmpty()) {
            throw new NetException(NetResult.INVALID_USAGE, (name == null ? "no network plugin" : "no network plugin named \""
                    + name + "\"") + " on the class path; found " + (names.isEmpty() ? "none" : names)
                    + " (choose with -D" + PROPERTY + " or " + ENV + ")");
        }
        throw new NetException(NetResult.INVALID_USAGE, "several network plugins " + names + " on the class path;"
                + " choose one with -D" + PROPERTY + " or " + ENV);
    }
}
