package io.ofinet.config;

import java.util.Locale;

/**
 * Where memory registrations live.
 *
 * <p>{@link #DOMAIN}: a registration belongs to the domain and serves every endpoint on it.
 * {@link #ENDPOINT}: every registration is bound to the one endpoint that uses it and enabled
 * before use (libfabric's FI_MR_ENDPOINT, required by Slingshot's CXI provider). {@link #AUTO}:
 * endpoint scope exactly when the provider's returned {@code mr_mode} has FI_MR_ENDPOINT.
 */
public enum MrScope {
    AUTO,
    DOMAIN,
    ENDPOINT;

    /** The name used in layouts and in the environment. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
