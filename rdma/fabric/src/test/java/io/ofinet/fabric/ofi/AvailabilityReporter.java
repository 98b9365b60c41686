package io.ofinet.fabric.ofi;

/** Prints whether libfabric loaded and why not; run where the library is hidden. */
public final class AvailabilityReporter {
    private AvailabilityReporter() {
    }

    public static void main(String[] args) {
        System.out.println("available: " + OfiLibrary.isAvailable());
        System.out.println("cause: " + OfiLibrary.unavailabilityCause().map(Throwable::getMessage).orElse("none"));
        try {
            new OfiProvider();
            System.out.println("provider: made");
        } catch (UnsatisfiedLinkError e) {
            System.out.println("provider: " + e.getMessage());
        }
    }
}
