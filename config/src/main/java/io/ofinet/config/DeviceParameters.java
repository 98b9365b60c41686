package io.ofinet.config;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The resolved device-wide parameters of one device, each with its source. */
public final class DeviceParameters {
    private final Map<Parameter<?>, Setting<?>> settings;

    DeviceParameters(Map<Parameter<?>, Setting<?>> settings) {
        LinkedHashMap<Parameter<?>, Setting<?>> ordered = new LinkedHashMap<>();
        for (Parameter<?> parameter : Parameters.ALL) {
            Setting<?> setting = settings.get(parameter);
            if (setting == null) {
                throw new IllegalArgumentException("no value for " + parameter);
            }
            ordered.put(parameter, setting);
        }
        this.settings = Collections.unmodifiableMap(ordered);
    }

    /** Every parameter at its default. */
    public static DeviceParameters defaults() {
        Map<Parameter<?>, Setting<?>> settings = new LinkedHashMap<>();
        for (Parameter<?> parameter : Parameters.ALL) {
            settings.put(parameter, defaultSetting(parameter));
        }
        return new DeviceParameters(settings);
    }

    static <T> Setting<T> defaultSetting(Parameter<T> parameter) {
        return new Setting<>(parameter, parameter.defaultValue(), Source.DEFAULT, "default");
    }

    /** The value of a parameter. */
    public <T> T get(Parameter<T> parameter) {
        return setting(parameter).value();
    }

    /** The value of a parameter with its source. */
    @SuppressWarnings("unchecked") // the map is keyed by parameter; each setting has its key's type
    public <T> Setting<T> setting(Parameter<T> parameter) {
        return (Setting<T>) settings.get(parameter);
    }

    /** Every setting, in {@link Parameters#ALL} order. */
    public Collection<Setting<?>> all() {
        return settings.values();
    }

    public MrScope mrScope() {
        return get(Parameters.MR_SCOPE);
    }

    public WriteNotice writeNotice() {
        return get(Parameters.WRITE_NOTICE);
    }

    public EagerHead eagerHead() {
        return get(Parameters.EAGER_HEAD);
    }

    public long eagerHeadMinSizeBytes() {
        return get(Parameters.EAGER_HEAD_MIN_SIZE);
    }

    public long eagerMaxSizeBytes() {
        return get(Parameters.EAGER_MAX_SIZE);
    }

    public long rtsDelayNanos() {
        return get(Parameters.RTS_DELAY_US) * 1000;
    }

    public long minStripeSizeBytes() {
        return get(Parameters.MIN_STRIPE_SIZE);
    }

    public long schedMaxSmallRrSizeBytes() {
        return get(Parameters.SCHED_MAX_SMALL_RR_SIZE);
    }

    public int cqReadCount() {
        return Math.toIntExact(get(Parameters.CQ_READ_COUNT));
    }

    public int mrKeySizeBytes() {
        return Math.toIntExact(get(Parameters.MR_KEY_SIZE));
    }

    public boolean mrCacheDisabled() {
        return get(Parameters.MR_CACHE_DISABLE);
    }

    public long connectionTimeoutMs() {
        return get(Parameters.CONNECTION_TIMEOUT_MS);
    }

    public long peerTimeoutMs() {
        return get(Parameters.PEER_TIMEOUT_MS);
    }

    public long postRetryTimeoutMs() {
        return get(Parameters.POST_RETRY_TIMEOUT_MS);
    }

    public boolean peerProcessCheckDisabled() {
        return get(Parameters.PEER_PROCESS_CHECK_DISABLE);
    }

    public boolean sourceCheckDisabled() {
        return get(Parameters.SOURCE_CHECK_DISABLE);
    }

    public boolean flushDisabled() {
        return get(Parameters.GDR_FLUSH_DISABLE);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeviceParameters other && settings.equals(other.settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    @Override
    public String toString() {
        return settings.values().toString();
    }
}
