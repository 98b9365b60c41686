/**
 * The rail layout and the plugin's parameters.
 *
 * <p>A layout is a JSON document listing devices; each device has data rails (a libfabric
 * provider and domain each) and control rails (each living on the domain of one data rail), and
 * device-wide {@linkplain io.ofinet.config.Parameters parameters}. {@link
 * io.ofinet.config.ConfigLoader} finds the layout (system property {@code ofinet.layout} or
 * environment {@code OFINET_LAYOUT}), or asks a {@link io.ofinet.config.RailDiscovery} for one,
 * applies overrides from the environment ({@code OFINET_<NAME>}) and system properties ({@code
 * ofinet.<name>}), and validates the result strictly. Every resolved value remembers where it
 * came from.
 */
package io.ofinet.config;
