package io.ofinet.config;

import java.util.List;
import java.util.Objects;

/**
 * A validated rail layout: the devices ofinet offers.
 *
 * @param devices at least one device
 * @param source {@link Source#FILE} for a layout file, {@link Source#DISCOVERED} for one derived
 *     from {@code fi_getinfo}
 * @param origin the file's path, or a description of the discovery
 */
public record RailLayout(List<DeviceSpec> devices, Source source, String origin) {
    /**
     * Data rails per device at most. The immediate data of a data write carries the segment
     * count in 4 bits, and 16 rails is more NICs than any host pairs with one accelerator today.
     */
    public static final int MAX_DATA_RAILS = 16;

    /** Control rails per device at most; each needs a data rail's domain. */
    public static final int MAX_CONTROL_RAILS = MAX_DATA_RAILS;

    public RailLayout {
        devices = List.copyOf(devices);
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(origin, "origin");
    }
}
