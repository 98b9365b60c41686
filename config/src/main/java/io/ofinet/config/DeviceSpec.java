package io.ofinet.config;

import java.util.List;
import java.util.Objects;

/**
 * One device of a layout: its rails and its resolved parameters.
 *
 * @param name the device's name, unique in the layout
 * @param dataRails the data rails, 1 to {@value RailLayout#MAX_DATA_RAILS}
 * @param controlRails the control rails, each on the domain of one data rail
 * @param parameters the device-wide parameters with their sources
 */
public record DeviceSpec(String name, List<DataRailSpec> dataRails, List<ControlRailSpec> controlRails,
        DeviceParameters parameters) {
    public DeviceSpec {
        Objects.requireNonNull(name, "name");
        dataRails = List.copyOf(dataRails);
        controlRails = List.copyOf(controlRails);
        Objects.requireNonNull(parameters, "parameters");
    }
}
