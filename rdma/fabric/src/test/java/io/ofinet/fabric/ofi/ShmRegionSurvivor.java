package io.ofinet.fabric.ofi;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Opens a libfabric {@code shm} endpoint through the binding, then throws and catches
 * NullPointerExceptions from implicit null checks (SIGSEGVs the JVM handles), and prints whether
 * the SIGSEGV handler is still the one the JVM had, and whether the endpoint's region is still in
 * /dev/shm, where endpoints opened later find it. {@code guarded} mode opens the endpoint as ofinet
 * does; {@code unguarded} mode calls the same binding with the signal guard bypassed (the control).
 */
public final class ShmRegionSurvivor {
    private ShmRegionSurvivor() {
    }

    public static void main(String[] args) throws Exception {
        boolean guarded = args[0].equals("guarded");
        long before = JvmSignalHandlers.handler(JvmSignalHandlers.SIGSEGV);
        OfiProvider provider = new OfiProvider();
        Fabric fabric;
        try (InfoList offers = provider.getinfo(InfoHints.protocol().withProvider("shm"))) {
            fabric = provider.openFabric(offers.infos().get(0));
        }
        Domain domain = fabric.openDomain();
        CompletionQueue cq = domain.openCompletionQueue(64);
        AddressVector av = domain.openAddressVector(16);
        Endpoint ep = ((OfiDomain) domain).openEndpoint(cq, av, guarded);
        ep.enable(); // shm creates the region here
        String name = new String(ep.name(), StandardCharsets.US_ASCII).replace("\0", "");
        Path region = Path.of("/dev/shm", name.replace("fi_shm://", ""));
        System.out.println("endpoint " + name + ", region present: " + Files.exists(region));
        System.out.println("SIGSEGV handler kept: " + (JvmSignalHandlers.handler(JvmSignalHandlers.SIGSEGV) == before));
        System.out.println("survived " + NpeSurvivor.implicitNullChecks(5000));
        System.out.println("region present after the null checks: " + Files.exists(region));
        ep.close();
        av.close();
        cq.close();
        domain.close();
        fabric.close();
    }
}
