package io.ofinet.mr;

import io.ofinet.fabric.Endpoint;
import java.util.List;
import java.util.Objects;

/**
 * The rails of one protocol endpoint, as registration needs them: per data rail its domain
 * context and endpoint, per control rail its endpoint and the data rail whose domain it lives on.
 * In endpoint scope, registrations made for these rails are bound to these endpoints.
 */
public final class Rails {
    private final List<DomainContext> domains;
    private final List<Endpoint> dataEndpoints;
    private final List<Endpoint> controlEndpoints;
    private final int[] controlOnData;

    /**
     * @param domains the domain of each data rail
     * @param dataEndpoints the endpoint of each data rail
     * @param controlEndpoints the endpoint of each control rail, on the domain of its data rail
     * @param controlOnData for each control rail, the index of its data rail
     */
    public Rails(List<DomainContext> domains, List<Endpoint> dataEndpoints, List<Endpoint> controlEndpoints,
            int[] controlOnData) {
        this.domains = List.copyOf(domains);
        this.dataEndpoints = List.copyOf(dataEndpoints);
        this.controlEndpoints = List.copyOf(controlEndpoints);
        this.controlOnData = controlOnData.clone();
        if (this.domains.isEmpty() || this.domains.size() != this.dataEndpoints.size()) {
            throw new IllegalArgumentException("one domain and one endpoint per data rail, at least one: "
                    + this.domains.size() + " domains, " + this.dataEndpoints.size() + " endpoints");
        }
        if (this.controlEndpoints.size() != this.controlOnData.length || this.controlOnData.length == 0) {
            throw new IllegalArgumentException("one data-rail index per control rail, at least one");
        }
        for (int c = 0; c < this.controlOnData.length; c++) {
            Objects.checkIndex(this.controlOnData[c], this.domains.size());
        }
    }

    public int dataRails() {
        return domains.size();
    }

    public int controlRails() {
        return controlEndpoints.size();
    }

    public DomainContext domain(int dataRail) {
        return domains.get(dataRail);
    }

    public Endpoint dataEndpoint(int dataRail) {
        return dataEndpoints.get(dataRail);
    }

    public Endpoint controlEndpoint(int controlRail) {
        return controlEndpoints.get(controlRail);
    }

    /** The data rail whose domain a control rail lives on. */
    public int dataRailOf(int controlRail) {
        return controlOnData[controlRail];
    }

    /** Whether any domain of these rails binds registrations to endpoints. */
    public boolean anyEndpointScope() {
        return domains.stream().anyMatch(d -> d.scope() == Scope.ENDPOINT);
    }
}
