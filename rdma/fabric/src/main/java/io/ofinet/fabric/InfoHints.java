package io.ofinet.fabric;

import java.util.Optional;

/**
 * What the caller asks of {@code fi_getinfo}. The endpoint type is always reliable datagram
 * (FI_EP_RDM), and the caller supports no mode bits: operation contexts are plain values.
 *
 * @param caps required capabilities
 * @param mrMode the registration modes the caller can handle
 * @param provider a provider name to require, e.g. {@code tcp;ofi_rxm}
 * @param domain a domain name to require, e.g. {@code lo}
 * @param node a node (address) to bind the source address to
 * @param threading the threading model wanted, {@link Fi#THREAD_UNSPEC} for any
 * @param dataProgress the data progress wanted, {@link Fi#PROGRESS_UNSPEC} for any
 */
public record InfoHints(long caps, int mrMode, Optional<String> provider, Optional<String> domain,
        Optional<String> node, int threading, int dataProgress) {

    /** What ofinet's RDMA protocol needs: messages, RMA read and write in both directions. */
    public static final long PROTOCOL_CAPS = Fi.MSG | Fi.RMA | Fi.READ | Fi.WRITE | Fi.REMOTE_READ
            | Fi.REMOTE_WRITE | Fi.SEND | Fi.RECV;

    /** Every registration mode ofinet handles. */
    public static final int PROTOCOL_MR_MODE = Fi.MR_LOCAL | Fi.MR_VIRT_ADDR | Fi.MR_ALLOCATED
            | Fi.MR_PROV_KEY | Fi.MR_ENDPOINT;

    public InfoHints {
        provider = provider.filter(s -> !s.isBlank());
        domain = domain.filter(s -> !s.isBlank());
        node = node.filter(s -> !s.isBlank());
    }

    /** The protocol's hints for any provider and domain. */
    public static InfoHints protocol() {
        return new InfoHints(PROTOCOL_CAPS, PROTOCOL_MR_MODE, Optional.empty(), Optional.empty(),
                Optional.empty(), Fi.THREAD_UNSPEC, Fi.PROGRESS_UNSPEC);
    }

    public InfoHints withProvider(String name) {
        return new InfoHints(caps, mrMode, Optional.of(name), domain, node, threading, dataProgress);
    }

    public InfoHints withDomain(String name) {
        return new InfoHints(caps, mrMode, provider, Optional.of(name), node, threading, dataProgress);
    }

    public InfoHints withNode(String address) {
        return new InfoHints(caps, mrMode, provider, domain, Optional.of(address), threading, dataProgress);
    }

    public InfoHints withMrMode(int mode) {
        return new InfoHints(caps, mode, provider, domain, node, threading, dataProgress);
    }

    /** The same hints asking for threading model {@code model} ({@link Fi#THREAD_SAFE}, ...). */
    public InfoHints withThreading(int model) {
        return new InfoHints(caps, mrMode, provider, domain, node, model, dataProgress);
    }

    public InfoHints withCaps(long capabilities) {
        return new InfoHints(capabilities, mrMode, provider, domain, node, threading, dataProgress);
    }
}
