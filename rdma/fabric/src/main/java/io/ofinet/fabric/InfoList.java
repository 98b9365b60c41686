package io.ofinet.fabric;

import java.util.List;

/**
 * The offers of one {@code fi_getinfo} call. Fabrics are opened from its entries while it is
 * open; an opened fabric keeps its own copy, so the list can be closed right after.
 */
public interface InfoList extends AutoCloseable {
    /** The offers, best first as the provider ranks them. */
    List<FabricInfo> infos();

    /** Frees the list ({@code fi_freeinfo}). Closing twice is harmless. */
    @Override
    void close();
}
