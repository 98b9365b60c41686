package io.ofinet.tools.layout;

import io.ofinet.config.ConfigEnvironment;
import io.ofinet.config.DataRailSpec;
import io.ofinet.config.DeviceSpec;
import io.ofinet.config.LayoutReport;
import io.ofinet.config.MrScope;
import io.ofinet.config.RailLayout;
import io.ofinet.config.ShowLayout;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.ofi.OfiDiscovery;
import io.ofinet.fabric.ofi.OfiLibrary;
import io.ofinet.fabric.ofi.OfiProvider;
import java.io.PrintStream;
import java.util.Optional;

/**
 * Command line ({@code bin/ofinet-layout}): the active rail layout with the source of every value,
 * then what libfabric offers for each data rail and the registration scope that follows. Exit
 * status 2 for an invalid layout, 1 when a rail has no offer or its scope cannot work, 0 otherwise.
 */
public final class ShowRails {
    private ShowRails() {
    }

    public static void main(String[] args) {
        System.exit(run(args, ConfigEnvironment.system(), System.out, System.err));
    }

    static int run(String[] args, ConfigEnvironment env, PrintStream out, PrintStream err) {
        Optional<RailLayout> loaded = ShowLayout.load(args, env, Optional.of(new OfiDiscovery()), err);
        if (loaded.isEmpty()) {
            return 2;
        }
        RailLayout layout = loaded.get();
        out.print(LayoutReport.render(layout));
        out.println();
        if (!OfiLibrary.isAvailable()) {
            out.println("libfabric: " + OfiLibrary.unavailabilityCause().map(Throwable::getMessage).orElse("unavailable"));
            return 1;
        }
        out.println("libfabric " + OfiLibrary.versionString(OfiLibrary.version()) + ", data path "
                + OfiProvider.dataPathName() + ":");
        boolean allUsable = true;
        OfiProvider provider = new OfiProvider();
        for (int d = 0; d < layout.devices().size(); d++) {
            DeviceSpec device = layout.devices().get(d);
            for (DataRailSpec rail : device.dataRails()) {
                allUsable &= describe(provider, d, device, rail, out);
            }
        }
        return allUsable ? 0 : 1;
    }

    private static boolean describe(OfiProvider provider, int d, DeviceSpec device, DataRailSpec rail, PrintStream out) {
        String label = "  device " + d + " data rail " + rail.index() + ": ";
        InfoHints hints = InfoHints.protocol().withProvider(rail.provider()).withDomain(rail.domain());
        if (rail.srcAddr().isPresent()) {
            hints = hints.withNode(rail.srcAddr().get());
        }
        try (InfoList offers = provider.getinfo(hints)) {
            if (offers.infos().isEmpty()) {
                out.println(label + "no offer from " + rail.provider() + " on " + rail.domain()
                        + " for RDM endpoints with messages and RMA");
                return false;
            }
            FabricInfo info = offers.infos().get(0);
            out.println(label + info.summary());
            MrScope wanted = device.parameters().mrScope();
            if (wanted == MrScope.ENDPOINT && !info.requiresEndpointMr()) {
                out.println(label + "mrScope endpoint is forced, but " + info.provider() + " does not offer"
                        + " FI_MR_ENDPOINT: initialisation will fail");
                return false;
            }
            out.println(label + "registrations: " + (info.requiresEndpointMr() || wanted == MrScope.ENDPOINT
                    ? "endpoint scope (bound and enabled per endpoint)" : "domain scope")
                    + ", remote addresses " + (info.virtualAddressing() ? "virtual" : "offsets from the region start")
                    + ", keys " + (info.providerKeys() ? "chosen by the provider" : "chosen by ofinet"));
            return true;
        } catch (FabricException e) {
            out.println(label + e.getMessage());
            return false;
        }
    }
}
