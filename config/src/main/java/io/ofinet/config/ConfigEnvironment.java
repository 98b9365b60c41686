package io.ofinet.config;

import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/** The process environment and system properties, as seen by the configuration. */
public interface ConfigEnvironment {

    /** An environment variable, when set. */
    Optional<String> getenv(String name);

    /** A system property, when set. */
    Optional<String> property(String name);

    /** Every environment variable whose name starts with the prefix. */
    Set<String> envNamesStartingWith(String prefix);

    /** Every system property whose name starts with the prefix; none unless the environment lists them. */
    default Set<String> propertyNamesStartingWith(String prefix) {
        return Set.of();
    }

    /** This process's environment and system properties. */
    static ConfigEnvironment system() {
        return of(System.getenv(), System.getProperties());
    }

    /** A fixed environment, for tests and for embedding. */
    static ConfigEnvironment of(Map<String, String> env, Properties properties) {
        Map<String, String> envCopy = Map.copyOf(env);
        Properties propertiesCopy = new Properties();
        propertiesCopy.putAll(properties);
        return new ConfigEnvironment() {
            @Override
            public Optional<String> getenv(String name) {
                return Optional.ofNullable(envCopy.get(name));
            }

            @Override
            public Optional<String> property(String name) {
                return Optional.ofNullable(propertiesCopy.getProperty(name));
            }

            @Override
            public Set<String> envNamesStartingWith(String prefix) {
                return startingWith(envCopy.keySet(), prefix);
            }

            @Override
            public Set<String> propertyNamesStartingWith(String prefix) {
                return startingWith(propertiesCopy.stringPropertyNames(), prefix);
            }
        };
    }

    /** The names among {@code names} that start with {@code prefix}, sorted. */
    private static Set<String> startingWith(Set<String> names, String prefix) {
        Set<String> matching = new TreeSet<>();
        for (String name : names) {
            if (name.startsWith(prefix)) {
                matching.add(name);
            }
        }
        return matching;
    }
}
