package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.fabric.testing.Peer.Completion;
import io.ofinet.fabric.testing.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What {@link FabricContract}'s cases stand on: two endpoints in one domain of one process, opened
 * before each case and closed after it (children first, each close twice), and the helpers to
 * register buffers, post with retries and wait for completions.
 */
public abstract class FabricFixture {
    protected static final Duration WAIT = Duration.ofSeconds(20);
    protected static final long ALL_ACCESS = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ
            | Fi.REMOTE_WRITE;

    protected Fabric fabric;
    protected Domain domain;
    protected Peer a;
    protected Peer b;
    protected long aToB;
    protected long bToA;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<HostBuffer> buffers = new ArrayList<>();
    private long nextKey = 1;

    /** The implementation under test. */
    protected abstract FabricProvider provider();

    /** Hints naming the provider and domain under test. */
    protected abstract InfoHints hints();

    protected FabricInfo info() {
        return fabric.info();
    }

    @BeforeEach
    void open() throws Exception {
        // Tagged messages too: every provider under test offers them.
        InfoHints tagged = hints().withCaps(hints().caps() | Fi.TAGGED);
        try (InfoList offers = provider().getinfo(tagged)) {
            assertFalse(offers.infos().isEmpty(), "no offer for " + tagged);
            fabric = provider().openFabric(offers.infos().get(0));
        }
        domain = fabric.openDomain();
        a = new Peer(domain);
        b = new Peer(domain);
        aToB = a.av.insert(b.endpoint.name());
        bToA = b.av.insert(a.endpoint.name());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
        // Every child was closed, so the domain and fabric close; a leak fails here with FI_EBUSY.
        if (domain != null) {
            domain.close();
            domain.close(); // closing twice is harmless
        }
        if (fabric != null) {
            fabric.close();
            fabric.close();
        }
        buffers.forEach(HostBuffer::close);
    }

    protected HostBuffer buffer(long size) {
        HostBuffer buffer = new HostBuffer(size);
        buffers.add(buffer);
        return buffer;
    }

    /** Registers a buffer for use on {@code peer}'s endpoint, bound and enabled where required. */
    protected MemoryRegion register(Peer peer, HostBuffer buffer, long access) throws FabricException {
        MemoryRegion mr = domain.register(buffer.address, buffer.size, access, nextKey++, Fi.HMEM_SYSTEM);
        toClose.add(mr);
        if (info().requiresEndpointMr()) {
            mr.bind(peer.endpoint, 0);
            mr.enable();
        }
        return mr;
    }

    /** A patterned source registered for {@code a} and a zeroed target registered for {@code b}. */
    protected record Transfer(HostBuffer src, MemoryRegion srcMr, HostBuffer dst, MemoryRegion dstMr) {
    }

    protected Transfer transfer(long srcSize, int seed, long dstSize) throws FabricException {
        HostBuffer src = buffer(srcSize).pattern(seed);
        HostBuffer dst = buffer(dstSize);
        return new Transfer(src, register(a, src, ALL_ACCESS), dst, register(b, dst, ALL_ACCESS));
    }

    /** The remote address of {@code offset} in a region, by the provider's convention. */
    protected long remote(MemoryRegion mr, long offset) {
        return info().virtualAddressing() ? mr.address() + offset : offset;
    }

    protected static void posted(int rc) {
        assertEquals(Endpoint.POSTED, rc, "post returned " + rc);
    }

    /** A post to retry. */
    @FunctionalInterface
    protected interface Post {
        int post() throws FabricException;
    }

    /**
     * Posts, retrying while it returns -FI_EAGAIN and driving progress on both peers in between:
     * tcp;ofi_rxm answers -FI_EAGAIN until the connection to a new peer is up, and the
     * connection comes up only while both sides poll.
     */
    protected void post(Post op) throws Exception {
        int[] rc = {op.post()};
        Progress.until(WAIT, () -> rc[0] == Endpoint.POSTED || (rc[0] = op.post()) == Endpoint.POSTED, a, b);
    }

    protected Completion await(Peer peer, long context) throws Exception {
        Completion[] found = new Completion[1];
        Progress.until(WAIT, () -> (found[0] = peer.take(context)) != null, a, b);
        return found[0];
    }
}
