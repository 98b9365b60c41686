package io.ofinet.mr;

import io.ofinet.fabric.FabricException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The registrations of one buffer on one endpoint's rails: one per data rail and one per control
 * rail, as its {@link Use} needs. In domain scope a control rail refers to the registration of its
 * data rail's domain (no second registration); in endpoint scope it owns its own, bound to the
 * control rail's endpoint. Built all or nothing: a failure on any rail undoes the others.
 */
final class RegistrationSet {
    final long address;
    final long length;
    final Use use;
    private final Registration[] data;
    private final Registration[] control;
    /** Registrations this set closes, in the order they were made. */
    private final List<Registration> owned = new ArrayList<>();
    private boolean closed;

    private RegistrationSet(long address, long length, Use use, int dataRails, int controlRails) {
        this.address = address;
        this.length = length;
        this.use = use;
        this.data = new Registration[dataRails];
        this.control = new Registration[controlRails];
    }

    static RegistrationSet register(Rails rails, long address, long length, Use use) throws MrException {
        RegistrationSet set = new RegistrationSet(address, length, use, rails.dataRails(), rails.controlRails());
        String step = "";
        try {
            if (use.on(RailKind.DATA)) {
                for (int r = 0; r < rails.dataRails(); r++) {
                    step = "data rail " + r;
                    set.data[r] = set.own(Registration.make(rails.domain(r), address, length, use.access(),
                            rails.dataEndpoint(r)));
                }
            }
            if (use.on(RailKind.CONTROL)) {
                for (int c = 0; c < rails.controlRails(); c++) {
                    step = "control rail " + c;
                    int d = rails.dataRailOf(c);
                    DomainContext domain = rails.domain(d);
                    Registration shared = domain.scope() == Scope.DOMAIN ? set.domainScoped(rails, d, c) : null;
                    set.control[c] = shared != null ? shared : set.own(Registration.make(domain, address, length,
                            use.access(), rails.controlEndpoint(c)));
                }
            }
            return set;
        } catch (MrException | FabricException | RuntimeException e) {
            MrException failure = new MrException("registering " + length + " bytes at 0x" + Long.toHexString(address)
                    + " as " + use + " failed on " + step + ": " + e.getMessage(), e);
            set.closeQuietly(failure);
            throw failure;
        }
    }

    /**
     * In domain scope, an existing registration of the domain of data rail {@code d}: the data
     * registration, or that of an earlier control rail on the same domain.
     */
    private Registration domainScoped(Rails rails, int d, int controlRail) {
        if (data[d] != null) {
            return data[d];
        }
        for (int c = 0; c < controlRail; c++) {
            if (rails.dataRailOf(c) == d) {
                return control[c];
            }
        }
        return null;
    }

    private Registration own(Registration registration) {
        owned.add(registration);
        return registration;
    }

    /** The registration serving {@code rail} of {@code kind}; never the other kind's by mistake. */
    Registration on(RailKind kind, int rail) {
        Registration[] set = kind == RailKind.DATA ? data : control;
        if (!use.on(kind)) {
            throw new IllegalStateException(use + " is not registered for " + kind.name().toLowerCase(Locale.ROOT)
                    + " rails");
        }
        if (closed) {
            throw new IllegalStateException("the registration is closed");
        }
        return set[Objects.checkIndex(rail, set.length)];
    }

    /**
     * Closes what it owns, newest first (control registrations before the data ones). The set is
     * unusable from the first attempt on; a registration whose close failed stays owned, and the
     * next call tries it again.
     */
    void close() throws MrException {
        closed = true;
        MrException failure = null;
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
                owned.remove(i);
            } catch (FabricException e) {
                if (failure == null) {
                    failure = new MrException("deregistering 0x" + Long.toHexString(address) + " failed: "
                            + e.getMessage(), e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void closeQuietly(Exception primary) {
        try {
            close();
        } catch (MrException e) {
            primary.addSuppressed(e);
        }
    }
}
