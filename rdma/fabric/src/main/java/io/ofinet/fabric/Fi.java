package io.ofinet.fabric;

/**
 * libfabric's bit values and enumerations that cross the provider boundary (libfabric 1.17
 * headers; pinned against them by a test). Grouped by the field they go into.
 */
public final class Fi {
    private Fi() {
    }

    // fi_info.caps, fi_tx_attr.caps, fi_rx_attr.caps
    public static final long MSG = 1L << 1;
    public static final long RMA = 1L << 2;
    public static final long TAGGED = 1L << 3;
    public static final long READ = 1L << 8;
    public static final long WRITE = 1L << 9;
    public static final long RECV = 1L << 10;
    public static final long SEND = 1L << 11;
    public static final long REMOTE_READ = 1L << 12;
    public static final long REMOTE_WRITE = 1L << 13;
    /** Completions name the source of what arrived ({@code fi_cq_readfrom}). */
    public static final long SOURCE = 1L << 57;
    public static final long HMEM = 1L << 47;
    public static final long LOCAL_COMM = 1L << 51;
    public static final long REMOTE_COMM = 1L << 52;

    // Operation flags (the *msg calls, completion entries)
    public static final long TRANSMIT = SEND;
    public static final long MULTI_RECV = 1L << 16;
    /** A completion entry carries immediate data from the peer. */
    public static final long REMOTE_CQ_DATA = 1L << 17;
    public static final long COMPLETION = 1L << 24;
    public static final long INJECT = 1L << 25;
    public static final long TRANSMIT_COMPLETE = 1L << 27;
    public static final long DELIVERY_COMPLETE = 1L << 28;

    // fi_tx_attr.msg_order
    /** A send arrives after the writes posted before it on the same endpoint to the same peer. */
    public static final long ORDER_SAW = 1L << 7;

    // fi_domain_attr.mr_mode
    public static final int MR_BASIC = 1;
    public static final int MR_SCALABLE = 1 << 1;
    public static final int MR_LOCAL = 1 << 2;
    public static final int MR_RAW = 1 << 3;
    /** Remote addresses are virtual addresses, not offsets from the region's start. */
    public static final int MR_VIRT_ADDR = 1 << 4;
    public static final int MR_ALLOCATED = 1 << 5;
    /** The provider chooses keys; requested keys are ignored. */
    public static final int MR_PROV_KEY = 1 << 6;
    /** Registrations must be bound to an endpoint and enabled before use. */
    public static final int MR_ENDPOINT = 1 << 9;
    public static final int MR_HMEM = 1 << 10;

    // fi_ep_attr.type
    public static final int EP_RDM = 3;

    // fi_domain_attr.data_progress / control_progress
    public static final int PROGRESS_UNSPEC = 0;
    public static final int PROGRESS_AUTO = 1;
    public static final int PROGRESS_MANUAL = 2;

    // fi_domain_attr.threading
    public static final int THREAD_UNSPEC = 0;
    public static final int THREAD_SAFE = 1;
    public static final int THREAD_FID = 2;
    public static final int THREAD_DOMAIN = 3;
    public static final int THREAD_COMPLETION = 4;
    public static final int THREAD_ENDPOINT = 5;

    // fi_info.addr_format
    public static final int FORMAT_UNSPEC = 0;
    public static final int SOCKADDR = 1;
    public static final int SOCKADDR_IN = 2;
    public static final int SOCKADDR_IN6 = 3;
    public static final int ADDR_STR = 9;

    /** fi_addr_t meaning "any source". */
    public static final long ADDR_UNSPEC = -1L;
    /** The source of a completion is not known ({@code FI_ADDR_NOTAVAIL}, the same value). */
    public static final long ADDR_NOTAVAIL = -1L;

    // enum fi_hmem_iface
    public static final int HMEM_SYSTEM = 0;
    public static final int HMEM_CUDA = 1;

    /** Names of the set bits of an mr_mode value, e.g. {@code [FI_MR_VIRT_ADDR]}. */
    public static String mrModeString(int mrMode) {
        StringBuilder sb = new StringBuilder("[");
        String[] names = {"FI_MR_BASIC", "FI_MR_SCALABLE", "FI_MR_LOCAL", "FI_MR_RAW",
            "FI_MR_VIRT_ADDR", "FI_MR_ALLOCATED", "FI_MR_PROV_KEY", "FI_MR_MMU_NOTIFY",
            "FI_MR_RMA_EVENT", "FI_MR_ENDPOINT", "FI_MR_HMEM", "FI_MR_COLLECTIVE"};
        for (int bit = 0; bit < names.length; bit++) {
            if ((mrMode & (1 << bit)) != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(names[bit]);
            }
        }
        return sb.append(']').toString();
    }

    /** The name of a progress value, e.g. {@code FI_PROGRESS_MANUAL}. */
    public static String progressString(int progress) {
        switch (progress) {
            case PROGRESS_AUTO:
                return "FI_PROGRESS_AUTO";
            case PROGRESS_MANUAL:
                return "FI_PROGRESS_MANUAL";
            default:
                return "FI_PROGRESS_UNSPEC";
        }
    }

    /** The name of a threading value, e.g. {@code FI_THREAD_SAFE}. */
    public static String threadingString(int threading) {
        String[] names = {"FI_THREAD_UNSPEC", "FI_THREAD_SAFE", "FI_THREAD_FID", "FI_THREAD_DOMAIN",
            "FI_THREAD_COMPLETION", "FI_THREAD_ENDPOINT"};
        return threading >= 0 && threading < names.length ? names[threading] : "threading " + threading;
    }
}
