package io.ofinet.fabric.ofi;

import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.testing.HostBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code RegistrationChurn PROVIDER DOMAIN THREADS SECONDS}: THREADS threads register and
 * deregister memory on one domain of real libfabric for SECONDS, while another thread keeps the
 * garbage collector busy, so that collections land inside the native calls of the setup path.
 * Memory the binding hands to libfabric (an {@code fi_mr_attr} and its iovec) must stay allocated
 * until the call returns, however soon its Java owner becomes unreachable. Prints the number of
 * registrations and exits 0, or dies.
 */
public final class RegistrationChurn {
    private RegistrationChurn() {
    }

    public static void main(String[] args) throws Exception {
        String provider = args[0];
        String domainName = args[1];
        int threads = Integer.parseInt(args[2]);
        long until = System.nanoTime() + Long.parseLong(args[3]) * 1_000_000_000L;
        OfiProvider ofi = new OfiProvider();
        Fabric fabric;
        try (InfoList offers = ofi.getinfo(InfoHints.protocol().withProvider(provider).withDomain(domainName))) {
            fabric = ofi.openFabric(offers.infos().get(0));
        }
        AtomicLong registrations = new AtomicLong();
        AtomicBoolean failed = new AtomicBoolean();
        try (Fabric f = fabric; Domain domain = f.openDomain(); HostBuffer buffer = new HostBuffer(1 << 20)) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                workers.add(new Thread(() -> {
                    try {
                        for (long i = 0; System.nanoTime() < until; i++) {
                            long offset = 4096L * ((index * 31 + i) % 200);
                            MemoryRegion mr = domain.register(buffer.address + offset, 4096 + 64 * (i % 50),
                                    Fi.SEND | Fi.RECV | Fi.REMOTE_WRITE, index + 1, Fi.HMEM_SYSTEM);
                            mr.close();
                            registrations.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.set(true);
                        e.printStackTrace(System.out);
                    }
                }, "registering-" + t));
            }
            Thread collector = new Thread(() -> {
                List<byte[]> garbage = new ArrayList<>();
                while (System.nanoTime() < until) {
                    for (int i = 0; i < 64; i++) {
                        garbage.add(new byte[4096]);
                    }
                    garbage.clear();
                    System.gc();
                }
            }, "collector");
            collector.setDaemon(true);
            workers.forEach(Thread::start);
            collector.start();
            for (Thread w : workers) {
                w.join();
            }
        }
        System.out.println("registrations: " + registrations.get());
        System.exit(failed.get() ? 1 : 0);
    }
}
