package io.ofinet.config;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Finds, reads, overrides and validates the rail layout.
 *
 * <p>Precedence, lowest first: built-in default, layout file (or discovery), environment {@code
 * OFINET_<NAME>}, system property {@code ofinet.<name>}. Overrides apply to every device; rails
 * come only from the layout file or discovery.
 */
public final class ConfigLoader {
    /** Environment variable naming the layout file. */
    public static final String LAYOUT_ENV = "OFINET_LAYOUT";
    /** System property naming the layout file; wins over {@link #LAYOUT_ENV}. */
    public static final String LAYOUT_PROPERTY = "ofinet.layout";

    /**
     * {@code OFINET_*} variables that are not parameters but are read elsewhere: the layout, the
     * plugin's name, its logging switch, the JDK (of the bin/ scripts and of the NCCL library), the
     * NCCL library's JVM options, AOT cache, warm-up and compiler threads' priority, and the bin/
     * scripts' benchmark provider.
     */
    static final Set<String> OTHER_VARIABLES = Set.of(LAYOUT_ENV, "OFINET_PLUGIN", "OFINET_DEBUG",
            "OFINET_DEBUG_SUBSYS", "OFINET_JAVA_HOME", "OFINET_JVM_OPTIONS", "OFINET_AOT_CACHE",
            "OFINET_WARM_UP", "OFINET_JIT_NICE", "OFINET_BENCH_PROVIDER");

    /** {@code ofinet.*} system properties that are not parameters: the layout, the plugin's name, the data path. */
    static final Set<String> OTHER_PROPERTIES = Set.of(LAYOUT_PROPERTY, "ofinet.plugin", "ofinet.dataPath");

    private static final System.Logger LOG = System.getLogger(ConfigLoader.class.getName());

    private ConfigLoader() {
    }

    /**
     * Loads the layout this process is configured with: the file named by {@code ofinet.layout}
     * or {@code OFINET_LAYOUT}, or else one discovered by the first {@link RailDiscovery} found
     * by {@link ServiceLoader}.
     */
    public static RailLayout load() throws ConfigException {
        ConfigEnvironment env = ConfigEnvironment.system();
        return load(env, ServiceLoader.load(RailDiscovery.class).findFirst());
    }

    /** Loads the layout named by {@code env}, or else discovers one. */
    public static RailLayout load(ConfigEnvironment env, Optional<RailDiscovery> discovery)
            throws ConfigException {
        Optional<Path> file = layoutPath(env);
        if (file.isPresent()) {
            return loadFile(file.get(), env);
        }
        if (discovery.isEmpty()) {
            throw new ConfigException("configuration", "", "no layout file and no rail discovery:"
                    + " set " + LAYOUT_ENV + " (or -D" + LAYOUT_PROPERTY + ") to a layout such as"
                    + " config/examples/loopback-tcp.json, or put ofinet-fabric on the classpath"
                    + " to discover rails from fi_getinfo");
        }
        return discover(discovery.get(), env);
    }

    /** The layout file named by the system property or the environment, if any. */
    public static Optional<Path> layoutPath(ConfigEnvironment env) {
        return env.property(LAYOUT_PROPERTY).or(() -> env.getenv(LAYOUT_ENV))
                .filter(s -> !s.isBlank()).map(Path::of);
    }

    /** Reads a layout file and applies the overrides of {@code env}. */
    public static RailLayout loadFile(Path file, ConfigEnvironment env) throws ConfigException {
        String origin = file.toString().isEmpty() ? "(an empty path)" : file.toString();
        String json;
        try {
            if (Files.isDirectory(file)) {
                throw new ConfigException(origin, "", "is a directory, not a layout file");
            }
            byte[] bytes = Files.readAllBytes(file);
            json = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (NoSuchFileException e) {
            throw new ConfigException(origin, "", "layout file does not exist", e);
        } catch (AccessDeniedException e) {
            throw new ConfigException(origin, "", "layout file cannot be read: permission denied", e);
        } catch (CharacterCodingException e) {
            throw new ConfigException(origin, "", "layout file is not UTF-8 text", e);
        } catch (IOException e) {
            throw new ConfigException(origin, "", "cannot read layout file: " + e.getMessage(), e);
        }
        // A byte-order mark, which some editors write at the start of UTF-8 text.
        return parse(json.startsWith("\uFEFF") ? json.substring(1) : json, origin, env);
    }

    /** Parses a layout document and applies the overrides of {@code env}. */
    public static RailLayout parse(String json, String origin, ConfigEnvironment env)
            throws ConfigException {
        List<LayoutParser.FileDevice> fileDevices = LayoutParser.parse(json, origin);
        Map<Parameter<?>, Setting<?>> overrides = overrides(env);
        List<DeviceSpec> devices = new ArrayList<>();
        for (int i = 0; i < fileDevices.size(); i++) {
            LayoutParser.FileDevice device = fileDevices.get(i);
            DeviceParameters parameters = resolve(device.settings(), overrides, origin, "devices[" + i + "]");
            devices.add(new DeviceSpec(device.name(), device.dataRails(), device.controlRails(), parameters));
        }
        return new RailLayout(devices, Source.FILE, origin);
    }

    /**
     * Builds a layout from discovered domains: one device per domain, with one data rail and one
     * control rail on it, parameters at their defaults but for the overrides of {@code env}.
     */
    public static RailLayout discover(RailDiscovery discovery, ConfigEnvironment env)
            throws ConfigException {
        String origin = discovery.description();
        List<RailDiscovery.DiscoveredDomain> domains = discovery.discover();
        if (domains.isEmpty()) {
            throw new ConfigException(origin, "", "no usable provider domain was found; name one"
                    + " in a layout file (" + LAYOUT_ENV + ")");
        }
        Map<Parameter<?>, Setting<?>> overrides = overrides(env);
        List<DeviceSpec> devices = new ArrayList<>();
        for (int i = 0; i < domains.size(); i++) {
            RailDiscovery.DiscoveredDomain domain = domains.get(i);
            DeviceParameters parameters = resolve(Map.of(), overrides, origin, "devices[" + i + "]");
            devices.add(new DeviceSpec(domain.provider() + "/" + domain.domain(),
                    List.of(new DataRailSpec(0, domain.provider(), domain.domain(), Optional.empty())),
                    List.of(new ControlRailSpec(0, 0)), parameters));
        }
        return new RailLayout(devices, Source.DISCOVERED, origin);
    }

    /** Reads every parameter set in the environment or as a system property. */
    static Map<Parameter<?>, Setting<?>> overrides(ConfigEnvironment env) throws ConfigException {
        Map<Parameter<?>, Setting<?>> result = new LinkedHashMap<>();
        for (Parameter<?> parameter : Parameters.ALL) {
            // A former name first, so that the current one wins where both are set.
            for (String name : parameter.layoutNames()) {
                String variable = Parameter.envName(name);
                Optional<String> fromEnv = env.getenv(variable);
                if (fromEnv.isPresent()) {
                    result.put(parameter, fromText(parameter, fromEnv.get(), Source.ENVIRONMENT, variable));
                }
            }
            for (String name : parameter.layoutNames()) {
                String property = "ofinet." + name;
                Optional<String> fromProperty = env.property(property);
                if (fromProperty.isPresent()) {
                    result.put(parameter, fromText(parameter, fromProperty.get(), Source.SYSTEM_PROPERTY, property));
                }
            }
        }
        warnAboutUnknownVariables(env);
        return result;
    }

    private static <T> Setting<T> fromText(Parameter<T> parameter, String text, Source source,
            String name) throws ConfigException {
        try {
            return new Setting<>(parameter, parameter.fromText(text), source, name);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(source.label(), name, e.getMessage(), e);
        }
    }

    private static void warnAboutUnknownVariables(ConfigEnvironment env) {
        for (String name : env.envNamesStartingWith("OFINET_")) {
            boolean known = OTHER_VARIABLES.contains(name)
                    || Parameters.ALL.stream().anyMatch(p -> p.layoutNames().stream()
                            .anyMatch(n -> Parameter.envName(n).equals(name)));
            if (!known) {
                LOG.log(Level.WARNING, "ignoring unknown environment variable {0}", name);
            }
        }
        for (String name : env.propertyNamesStartingWith("ofinet.")) {
            boolean known = OTHER_PROPERTIES.contains(name) || Parameters.ALL.stream()
                    .anyMatch(p -> p.layoutNames().stream().anyMatch(n -> ("ofinet." + n).equals(name)));
            if (!known) {
                LOG.log(Level.WARNING, "ignoring unknown system property {0}", name);
            }
        }
    }

    /** Defaults, then the file's values, then overrides; then the rules between parameters. */
    private static DeviceParameters resolve(Map<Parameter<?>, Setting<?>> fromFile,
            Map<Parameter<?>, Setting<?>> overrides, String origin, String devicePath)
            throws ConfigException {
        Map<Parameter<?>, Setting<?>> settings = new LinkedHashMap<>();
        for (Parameter<?> parameter : Parameters.ALL) {
            settings.put(parameter, DeviceParameters.defaultSetting(parameter));
        }
        settings.putAll(fromFile);
        settings.putAll(overrides);
        DeviceParameters parameters = new DeviceParameters(settings);
        checkRelations(parameters, origin, devicePath);
        return parameters;
    }

    private static void checkRelations(DeviceParameters parameters, String origin, String devicePath)
            throws ConfigException {
        notAbove(parameters, Parameters.EAGER_MAX_SIZE, Parameters.MIN_STRIPE_SIZE, origin, devicePath);
        notAbove(parameters, Parameters.RDMA_MIN_POSTED_CONTROL_BUFFERS,
                Parameters.RDMA_MAX_POSTED_CONTROL_BUFFERS, origin, devicePath);
        notAbove(parameters, Parameters.RDMA_MIN_POSTED_EAGER_BUFFERS,
                Parameters.RDMA_MAX_POSTED_EAGER_BUFFERS, origin, devicePath);
    }

    private static void notAbove(DeviceParameters parameters, Parameter<Long> lower,
            Parameter<Long> upper, String origin, String devicePath) throws ConfigException {
        Setting<Long> low = parameters.setting(lower);
        Setting<Long> high = parameters.setting(upper);
        if (low.value() > high.value()) {
            throw new ConfigException(origin, devicePath + "." + lower.name(), "must not exceed "
                    + upper.name() + " (" + high.value() + describeSource(high) + "), found "
                    + low.value() + describeSource(low));
        }
    }

    private static String describeSource(Setting<?> setting) {
        switch (setting.source()) {
            case ENVIRONMENT:
            case SYSTEM_PROPERTY:
                return " from " + setting.source().label() + " " + setting.origin();
            case DEFAULT:
                return " by default";
            default:
                return "";
        }
    }
}
