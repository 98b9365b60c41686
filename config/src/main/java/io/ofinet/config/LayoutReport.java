package io.ofinet.config;

import java.util.Locale;

/** Renders a layout as text: every device, its rails, and every parameter with its source. */
public final class LayoutReport {
    private LayoutReport() {
    }

    /** The report, ending with a newline. */
    public static String render(RailLayout layout) {
        StringBuilder out = new StringBuilder();
        out.append("layout: ").append(layout.origin()).append(" (").append(layout.source().label())
                .append(")\n");
        for (int d = 0; d < layout.devices().size(); d++) {
            DeviceSpec device = layout.devices().get(d);
            out.append('\n').append("device ").append(d).append(": ").append(device.name()).append('\n');
            out.append("  data rails:\n");
            for (DataRailSpec rail : device.dataRails()) {
                out.append(String.format(Locale.ROOT, "    %2d  provider %-14s domain %s%s%n",
                        rail.index(), rail.provider(), rail.domain(),
                        rail.srcAddr().map(a -> "  srcAddr " + a).orElse("")));
            }
            out.append("  control rails:\n");
            for (ControlRailSpec rail : device.controlRails()) {
                out.append(String.format(Locale.ROOT, "    %2d  on the domain of data rail %d%n",
                        rail.index(), rail.dataRail()));
            }
            out.append("  parameters:\n");
            for (Setting<?> setting : device.parameters().all()) {
                String unit = setting.parameter().unit();
                String value = setting.formattedValue() + (unit.isEmpty() ? "" : " " + unit);
                out.append(String.format(Locale.ROOT, "    %-28s %-16s %s%n", setting.parameter().name(),
                        value, describe(setting)));
            }
        }
        return out.toString();
    }

    private static String describe(Setting<?> setting) {
        switch (setting.source()) {
            case DEFAULT:
                return "default";
            case FILE:
                return "file " + setting.origin();
            default:
                return setting.source().label() + " " + setting.origin();
        }
    }
}
