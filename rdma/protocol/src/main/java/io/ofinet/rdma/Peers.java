package io.ofinet.rdma;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.progress.PeerQueue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * An endpoint's destinations, each with the queue its refused posts wait in: one per peer address
 * per rail (rails indexed as the engine's queues: data rails first, then control rails), and one
 * per rail for posts that go to no peer (posted receives, the flush's reads through the endpoint's
 * own address). Queues are made when a connection's addresses become known — never on the data
 * path — and live as long as the endpoint. Owned by the endpoint, like the engine.
 */
final class Peers {
    /**
     * How long posts to a peer on a rail with connections made on demand may be refused, with
     * nothing in flight to it, before that is taken as evidence that the peer is gone
     * ({@link PeerQueue#refusedReconnect}).
     */
    static final long REFUSED_RECONNECT_NANOS = 2_000_000_000L;

    private final RailSet rails;
    private final List<AddressVector> avs;
    private final int dataRails;
    private final List<Map<Long, PeerQueue>> byRail = new ArrayList<>();
    private final PeerQueue[] local;

    Peers(RailSet rails, int dataRails) {
        this.rails = rails;
        this.avs = rails.avs();
        this.dataRails = dataRails;
        this.local = new PeerQueue[avs.size()];
        for (int i = 0; i < avs.size(); i++) {
            byRail.add(new HashMap<>());
            local[i] = new PeerQueue("this endpoint on " + railName(i)).onRail(i);
        }
    }

    private String railName(int rail) {
        return rail < dataRails ? "data rail " + rail : "control rail " + (rail - dataRails);
    }

    /** The queue of peer {@code fiAddr} on engine rail {@code rail}, made on first use. */
    PeerQueue queue(int rail, long fiAddr) {
        return byRail.get(rail).computeIfAbsent(fiAddr, a -> new PeerQueue(address(rail, a) + " on " + railName(rail),
                true, rails.connectsOnDemand(rail) ? REFUSED_RECONNECT_NANOS : 0).onRail(rail));
    }

    /** The queue of posts with no peer on engine rail {@code rail}. */
    PeerQueue local(int rail) {
        return local[rail];
    }

    /** Peer {@code fiAddr}'s address on engine rail {@code rail}, for messages. */
    String address(int rail, long fiAddr) {
        try {
            return addressString(avs.get(rail).lookup(fiAddr));
        } catch (FabricException e) {
            return "fi_addr " + fiAddr;
        }
    }

    /**
     * An endpoint name for people: {@code ip:port} for an IPv4 socket address (tcp, sockets), the
     * text of a printable name (shm), hex otherwise.
     */
    static String addressString(byte[] name) {
        if (name.length >= 8 && name[0] == 2 && name[1] == 0) { // sockaddr_in, AF_INET in host order
            int port = (name[2] & 0xff) << 8 | name[3] & 0xff;
            return (name[4] & 0xff) + "." + (name[5] & 0xff) + "." + (name[6] & 0xff) + "." + (name[7] & 0xff) + ":"
                    + port;
        }
        int end = 0;
        while (end < name.length && name[end] >= 0x20 && name[end] < 0x7f) {
            end++;
        }
        boolean zeros = true;
        for (int i = end; i < name.length; i++) {
            zeros &= name[i] == 0;
        }
        if (end > 0 && zeros) {
            return new String(name, 0, end, StandardCharsets.US_ASCII);
        }
        return HexFormat.of().formatHex(name);
    }
}
