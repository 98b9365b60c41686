package io.ofinet.config;

/**
 * One control rail of a device. A control rail is a second endpoint on the domain of a data
 * rail, so that in domain scope its registrations are that domain's data registrations.
 *
 * @param index position in the device's control rails
 * @param dataRail index of the data rail whose domain it shares
 */
public record ControlRailSpec(int index, int dataRail) {
}
