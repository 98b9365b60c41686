package io.ofinet.fabric.mem;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The endpoints of one provider instance, by address. Every state change in the instance
 * happens under this object's monitor, so the provider is thread-safe and deterministic.
 */
final class MemNetwork {
    final MemProvider.Config config;
    private final Map<Long, MemEndpoint> endpoints = new HashMap<>();
    private final MemFaults faults = new MemFaults(this);
    /** Calls recorded while a test asks for them: completion-queue reads and posts, in order. */
    private final java.util.List<String> calls = new java.util.ArrayList<>();
    private boolean recording;
    private final SplittableRandom random;
    private long nextAddress = 1;
    private long nextDescriptor = 1;

    MemNetwork(MemProvider.Config config) {
        this.config = config;
        this.random = config.outOfOrderSeed() == 0 ? null : new SplittableRandom(config.outOfOrderSeed());
    }

    /** Records {@code call} when recording (called with the monitor held). */
    void record(String call) {
        if (recording) {
            calls.add(call);
        }
    }

    /** Starts recording calls afresh. */
    synchronized void startRecording() {
        calls.clear();
        recording = true;
    }

    /** Stops recording and returns what was recorded. */
    synchronized java.util.List<String> stopRecording() {
        recording = false;
        return java.util.List.copyOf(calls);
    }

    MemFaults faults() {
        return faults;
    }

    synchronized long register(MemEndpoint endpoint) {
        long address = nextAddress++;
        endpoints.put(address, endpoint);
        return address;
    }

    synchronized void unregister(long address) {
        endpoints.remove(address);
    }

    synchronized MemEndpoint lookup(long address) {
        return endpoints.get(address);
    }

    synchronized long newDescriptor() {
        return nextDescriptor++;
    }

    /** Which of the first {@code ready} entries a completion queue hands out next. */
    synchronized int pick(int ready) {
        return random == null || ready <= 1 ? 0 : random.nextInt(Math.min(ready, 8));
    }
}
