package io.ofinet.rdma.rail;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.wire.ProcessIdentity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * An endpoint's destinations, each with the queue its refused posts wait in: one per peer address
 * per rail (rails indexed as the engine's queues: data rails first, then control rails), and one
 * per rail for posts that go to no peer (posted receives, the flush's reads through the endpoint's
 * own address). Queues are made when a connection's addresses become known — never on the data
 * path. Owned by the endpoint, like the engine.
 *
 * <p>It also owns the address vectors' entries: each peer address is inserted once per rail and
 * counted by its users (connections, a handshake in flight); when the last lets go it is removed,
 * with its queue, once nothing waits in that queue or is in flight to it ({@link #sweep}). shm
 * counts every insert, duplicates included, against its peer limit, and its remove unmaps the peer
 * for every entry of the same address: one entry per address is right for both shm and rxm (which
 * counts references itself). On shm a peer that is still alive keeps its entry: after a remove and
 * a new insert of the same peer, shm names the old entry as the source of what that peer sends
 * (measured: ManyPeersIT), so an entry goes only once its process has ended or its region's name
 * is gone from {@code /dev/shm} (its endpoint closed, or a cleaner removed the name: shm can map
 * it no more either way; {@link AddressVector#unreachable}), looked at
 * once every {@link #RECHECK_NANOS}.
 */
public final class Peers {
    /**
     * How long posts to a peer on a rail with connections made on demand may be refused, with
     * nothing in flight to it, before that is taken as evidence that the peer is gone
     * ({@link PeerQueue#refusedReconnect}).
     */
    public static final long REFUSED_RECONNECT_NANOS = 2_000_000_000L;
    private static final System.Logger LOG = System.getLogger(Peers.class.getName());
    /**
     * How long an address no connection uses stays in the address vector: a communicator opened
     * again to the same peer soon (as frameworks do) finds it, and rxm keeps its connection instead
     * of tearing it down and making it again.
     */
    public static final long RETIRED_KEPT_NANOS = 2_000_000_000L;
    /** How often a retired entry kept for a live peer (shm) is looked at again. */
    static final long RECHECK_NANOS = 1_000_000_000L;

    private final RailSet rails;
    private final List<AddressVector> avs;
    private final int dataRails;
    private final List<Map<Long, PeerQueue>> byRail = new ArrayList<>();
    private final PeerQueue[] local;
    /** Per rail: the entries by address, and by handle. */
    private final List<Map<AddressKey, Entry>> entriesByAddress = new ArrayList<>();
    private final List<Map<Long, Entry>> entriesByHandle = new ArrayList<>();
    /** Entries no user holds any more, to remove once their queue is idle. */
    private final List<Entry> retired = new ArrayList<>();
    private int entryCount;

    /** An address vector entry and how many hold it; the endpoint's own addresses are held for good. */
    private static final class Entry {
        final int rail;
        final long fiAddr;
        final AddressKey key;
        int users;
        long retiredNanos;
        /** When a retired entry kept for its peer is next looked at. */
        long recheckNanos;
        /** In {@link #retired}: at most once. */
        boolean listed;
        /** The peer's process, when a connection named it: on shm an entry goes only once it ended. */
        ProcessIdentity process;

        Entry(int rail, long fiAddr, AddressKey key) {
            this.rail = rail;
            this.fiAddr = fiAddr;
            this.key = key;
        }
    }

    /** An endpoint name as a map key. */
    private record AddressKey(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof AddressKey k && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    public Peers(RailSet rails, int dataRails) throws FabricException {
        this.rails = rails;
        this.avs = rails.avs();
        this.dataRails = dataRails;
        this.local = new PeerQueue[avs.size()];
        for (int i = 0; i < avs.size(); i++) {
            byRail.add(new HashMap<>());
            entriesByAddress.add(new HashMap<>());
            entriesByHandle.add(new HashMap<>());
            local[i] = new PeerQueue("this endpoint on " + railName(i)).onRail(i);
        }
        for (int r = 0; r < dataRails; r++) {
            // The endpoint's own address, inserted by the rails for the flush: a peer on this very
            // endpoint finds it here rather than inserting it again.
            Entry self = new Entry(r, rails.self(r), new AddressKey(rails.dataEndpoint(r).name()));
            self.users = 1;
            entriesByAddress.get(r).put(self.key, self);
            entriesByHandle.get(r).put(self.fiAddr, self);
            entryCount++;
        }
    }

    /**
     * The handle of {@code address} on engine rail {@code rail}, inserted into its address vector
     * unless it is there already, and counted as one more use: each use ends with {@link #release}.
     */
    public long insert(int rail, byte[] address) throws FabricException {
        return insert(rail, address, null);
    }

    /** {@link #insert(int, byte[])} for a connection to {@code process} (null when unknown). */
    public long insert(int rail, byte[] address, ProcessIdentity process) throws FabricException {
        AddressKey key = new AddressKey(address.clone());
        Entry entry = entriesByAddress.get(rail).get(key);
        if (entry == null) {
            requireWellFormed(rail, address); // not to be taken for a full vector below
            long fiAddr;
            try {
                fiAddr = avs.get(rail).insert(address);
            } catch (FabricException e) {
                throw rails.addressVectorFull(rail, entriesByAddress.get(rail).size(), e);
            }
            entry = new Entry(rail, fiAddr, key);
            entriesByAddress.get(rail).put(key, entry);
            entriesByHandle.get(rail).put(fiAddr, entry);
            entryCount++;
        }
        entry.users++;
        if (process != null) {
            entry.process = process;
        }
        return entry.fiAddr;
    }

    /** Refuses a name that is not one of engine rail {@code rail}'s address format ({@link AddressVector#requireWellFormed}). */
    public void requireWellFormed(int rail, byte[] address) throws FabricException {
        avs.get(rail).requireWellFormed(address);
    }

    /** One use of {@code fiAddr} on engine rail {@code rail} ended; the last one retires the entry. */
    public void release(int rail, long fiAddr) {
        Entry entry = entriesByHandle.get(rail).get(fiAddr);
        if (entry != null && entry.users > 0 && --entry.users == 0) {
            entry.retiredNanos = System.nanoTime();
            entry.recheckNanos = entry.retiredNanos;
            if (!entry.listed) {
                entry.listed = true;
                retired.add(entry);
            }
        }
    }

    /**
     * Removes the entries retired more than {@link #RETIRED_KEPT_NANOS} before {@code now} whose
     * queue is idle (nothing waits in it, nothing is in flight to the peer): from the address
     * vector, and their queue. Run with the endpoint's slow duties.
     */
    public void sweep(long now) {
        for (int i = retired.size() - 1; i >= 0; i--) {
            Entry entry = retired.get(i);
            if (entry.users > 0) {
                retired.remove(i); // used again meanwhile
                entry.listed = false;
                continue;
            }
            PeerQueue queue = byRail.get(entry.rail).get(entry.fiAddr);
            if (now - entry.retiredNanos < RETIRED_KEPT_NANOS
                    || queue != null && (queue.inFlight() > 0 || queue.pending() > 0)
                    || !rails.removesLivePeers(entry.rail) && keptForItsPeer(entry, now)) {
                continue;
            }
            retired.remove(i);
            entry.listed = false;
            entriesByAddress.get(entry.rail).remove(entry.key);
            entriesByHandle.get(entry.rail).remove(entry.fiAddr);
            byRail.get(entry.rail).remove(entry.fiAddr);
            entryCount--;
            try {
                avs.get(entry.rail).remove(entry.fiAddr);
            } catch (FabricException e) {
                LOG.log(System.Logger.Level.WARNING, "removing a peer''s address from the address vector of {0}: {1}",
                        railName(entry.rail), e.getMessage());
            }
        }
    }

    /**
     * Whether an entry of a rail that keeps live peers' entries (shm) stays: its peer's process
     * lives (or is not known) and its endpoint's region is still there; asked of the provider and
     * {@code /proc} once every {@link #RECHECK_NANOS}.
     */
    private boolean keptForItsPeer(Entry entry, long now) {
        if (now - entry.recheckNanos < 0) {
            return true;
        }
        entry.recheckNanos = now + RECHECK_NANOS;
        return (entry.process == null || ProcessCheck.ended(entry.process) == null)
                && avs.get(entry.rail).unreachable(entry.fiAddr) == null;
    }

    /** The rails whose address vectors these are. */
    public RailSet rails() {
        return rails;
    }

    /** Address vector entries this endpoint holds, its own included. */
    public int entries() {
        return entryCount;
    }

    private String railName(int rail) {
        return rail < dataRails ? "data rail " + rail : "control rail " + (rail - dataRails);
    }

    /** The queue of peer {@code fiAddr} on engine rail {@code rail}, made on first use. */
    public PeerQueue queue(int rail, long fiAddr) {
        return byRail.get(rail).computeIfAbsent(fiAddr, a -> new PeerQueue(address(rail, a) + " on " + railName(rail),
                true, rails.connectsOnDemand(rail) ? REFUSED_RECONNECT_NANOS : 0).onRail(rail)
                .reachability(() -> avs.get(rail).unreachable(a)));
    }

    /** The queue of posts with no peer on engine rail {@code rail}. */
    public PeerQueue local(int rail) {
        return local[rail];
    }

    /** Peer {@code fiAddr}'s address on engine rail {@code rail}, for messages. */
    public String address(int rail, long fiAddr) {
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
    public static String addressString(byte[] name) {
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
