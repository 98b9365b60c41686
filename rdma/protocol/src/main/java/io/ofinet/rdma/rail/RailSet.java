package io.ofinet.rdma.rail;

import io.ofinet.config.EagerHead;
import io.ofinet.config.WriteNotice;
import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.mr.DomainContext;
import io.ofinet.mr.MrException;
import io.ofinet.mr.Rails;
import io.ofinet.mr.Registrar;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.wire.Limits;
import java.util.ArrayList;
import java.util.List;

/**
 * The libfabric objects of an endpoint's rails: for each data rail and then each control rail (a
 * control rail on the domain of its data rail), a completion queue, an address vector and an
 * endpoint bound to both. Rails are indexed data rails first, then control rails, as the progress
 * engine's queues are. Closing closes the endpoints, then the address vectors, then the queues,
 * each in reverse order of opening.
 */
public final class RailSet {
    private static final System.Logger LOG = System.getLogger(RailSet.class.getName());
    private static final int CQ_SIZE = 4096;
    private static final int AV_SIZE = 256;

    private final int dataRails;
    private final List<CompletionQueue> queues = new ArrayList<>();
    private final List<AddressVector> avs = new ArrayList<>();
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final long[] self;
    private Rails registrationView;
    private boolean wideImmediate = true;
    private boolean noticeAfterWrite;
    /** Writes longer than this are announced by a write notice message even where others carry immediate data. */
    private long noticeAbove = Long.MAX_VALUE;
    private boolean sendsFollowWrites = true;
    /** Receive buffers up to this size get a tagged receive and one tagged message (writeNotice tagged); 0: none. */
    private long taggedUpTo;
    /** Each rail's offer (provider, caps, ordering), as the engine indexes rails. */
    private final List<FabricInfo> infos = new ArrayList<>();

    public RailSet(int dataRails) {
        this.dataRails = dataRails;
        this.self = new long[dataRails];
    }

    /**
     * Opens every rail. A failure leaves what was opened for {@link #close} to close.
     *
     * @param controlSpecs the control rails, each naming the data rail whose domain it uses
     * @param notice how the targets of writes learn of them
     */
    public void open(List<DomainContext> contexts, List<io.ofinet.config.ControlRailSpec> controlSpecs, WriteNotice notice)
            throws FabricException {
        int[] controlOnData = new int[controlSpecs.size()];
        for (int c = 0; c < controlOnData.length; c++) {
            controlOnData[c] = controlSpecs.get(c).dataRail();
        }
        List<Endpoint> dataEndpoints = new ArrayList<>();
        List<Endpoint> controlEndpoints = new ArrayList<>();
        for (int r = 0; r < dataRails; r++) {
            dataEndpoints.add(open(contexts.get(r).domain()));
            infos.add(contexts.get(r).info());
            sendsFollowWrites &= contexts.get(r).info().sendsFollowWrites();
        }
        for (int onData : controlOnData) {
            controlEndpoints.add(open(contexts.get(onData).domain()));
            infos.add(contexts.get(onData).info());
            sendsFollowWrites &= contexts.get(onData).info().sendsFollowWrites();
        }
        registrationView = new Rails(contexts, dataEndpoints, controlEndpoints, controlOnData);
        for (int r = 0; r < dataRails; r++) {
            self[r] = avs.get(r).insert(endpoints.get(r).name());
            wideImmediate &= contexts.get(r).info().cqDataSizeBytes() >= 8;
        }
        chooseNotices(notice);
        LOG.log(System.Logger.Level.DEBUG, "rails {0}: receive buffers of up to {1} bytes take a tagged message",
                providers(), taggedUpTo);
        LOG.log(System.Logger.Level.DEBUG, "rails {0}: writes announced {1}", providers(), noticeAfterWrite
                ? (sendsFollowWrites ? "by a message posted behind each write" : "by a message after each write completes")
                : noticeAbove == Long.MAX_VALUE ? "by immediate data"
                : "by immediate data up to " + noticeAbove + " bytes, longer ones by a message after the write completes");
    }

    private void chooseNotices(WriteNotice notice) {
        boolean all = switch (notice) {
            case IMMEDIATE -> false;
            case MESSAGE, TAGGED_SEND_INSTEAD -> true;
            case AUTO -> policies().stream().allMatch(ProviderPolicy::crashesOnCutImmediates);
        };
        long above = notice != WriteNotice.AUTO ? Long.MAX_VALUE
                : policies().stream().mapToLong(ProviderPolicy::immediateWritesUpTo).max().orElse(Long.MAX_VALUE);
        if ((all || above != Long.MAX_VALUE) && !wideImmediate) {
            LOG.log(System.Logger.Level.WARNING, "writeNotice: a notice message needs 8 bytes of CQ data on every data"
                    + " rail; writes carry immediate data");
            return;
        }
        noticeAfterWrite = all;
        noticeAbove = above;
        if (tagged(notice)) {
            taggedUpTo = policies().subList(0, dataRails).stream().allMatch(ProviderPolicy::taggedBoundedByRxmEagerLimit)
                    ? RxmEagerLimit.bytes() : Long.MAX_VALUE;
        }
    }

    /**
     * Whether large receive buffers get one tagged message each ({@link WriteNotice#TAGGED_SEND_INSTEAD}): as
     * set, or by default on {@code tcp} with one data rail (a tagged message travels on one rail,
     * where writes are striped over all of them); only where every data rail was granted
     * FI_TAGGED, and writes are announced by messages.
     */
    private boolean tagged(WriteNotice notice) {
        boolean wanted = providers().stream().allMatch(p -> wantsTagged(notice, p, dataRails));
        boolean granted = infos.subList(0, dataRails).stream().allMatch(i -> (i.caps() & Fi.TAGGED) != 0);
        if (wanted && !granted) {
            LOG.log(System.Logger.Level.WARNING, "writeNotice: tagged messages need FI_TAGGED on every data rail;"
                    + " large buffers are written");
        }
        return wanted && granted && noticeAfterWrite;
    }

    /**
     * Whether the layout asks for tagged messages where a rail of {@code provider} is one of
     * {@code dataRails}: the hints then ask for FI_TAGGED.
     */
    public static boolean wantsTagged(WriteNotice notice, String provider, int dataRails) {
        return notice == WriteNotice.TAGGED_SEND_INSTEAD || notice == WriteNotice.AUTO && dataRails == 1
                && new ProviderPolicy(provider).crashesOnCutImmediates();
    }

    /**
     * The largest receive buffer that gets a tagged receive and, from the sender, one tagged
     * message (above {@code eagerMaxSize}); 0 when none does. On {@code ofi_rxm} it is rxm's eager
     * limit ({@link RxmEagerLimit}): a larger message would go through rxm's own rendezvous.
     */
    public long taggedUpTo() {
        return taggedUpTo;
    }

    /**
     * The largest message every data rail completes at once, whatever its peer does: libfabric
     * 1.17's shm carries a message of up to its inject size inline in the command, and one above
     * it through its response queue, which completes in order across all peers (a stopped peer's
     * messages hold up everyone's). Eager messages stay within it. Unbounded elsewhere.
     */
    public long messagesCompleteAtOnceUpTo() {
        return policies().stream().mapToLong(ProviderPolicy::messagesCompleteAtOnceUpTo).min().orElse(Long.MAX_VALUE);
    }

    /**
     * Whether large sends that find no announcement send their heads ({@link EagerHead}): as
     * set, or by default where every data rail is {@code tcp}. Never with as many data rails as a
     * write's immediate data counts segments, as the head is one more.
     */
    public boolean sendsHeads(EagerHead setting) {
        boolean on = switch (setting) {
            case ON -> true;
            case OFF -> false;
            case AUTO -> policies().stream().allMatch(ProviderPolicy::headsByDefault);
        };
        // With tagged messages the head's bytes would be sent again: the message lands at the buffer's start.
        return on && dataRails < Limits.MAX_DATA_RAILS && taggedUpTo == 0;
    }

    /**
     * Whether the write of a segment of {@code length} bytes is announced by a notice message
     * rather than by immediate data: every write where {@link #noticeAfterWrite()}; on {@code shm}
     * (writeNotice auto) those longer than its inject size. libfabric 1.17's shm copies a longer
     * write with immediate data in the target's own progress, and the writer's completion of it waits
     * in the writer's response queue, which completes strictly in order across all peers: one peer
     * that stops progressing holds up the writes to every other. A plain write takes shm's fast
     * path instead: the writer copies with {@code process_vm_writev}, and it completes at once.
     * Shorter writes travel inline in the command either way and complete at once; immediate data
     * spares them the notice's extra step.
     */
    public boolean noticeFor(long length) {
        return noticeAfterWrite || length > noticeAbove;
    }

    /**
     * Whether every write is announced by a zero-byte message after it instead of by immediate data
     * ({@link WriteNotice}), and announcements are sent rather than written; then every rail
     * keeps receives posted for the write notices.
     */
    public boolean noticeAfterWrite() {
        return noticeAfterWrite;
    }

    /**
     * Whether a write's notice may be posted right behind the write instead of after its
     * completion: every rail's provider orders a send after the writes before it (FI_ORDER_SAW).
     * On {@code tcp} that keeps a notice from queueing behind the later writes of a window.
     */
    public boolean noticeBehindWrite() {
        return sendsFollowWrites;
    }

    /**
     * Whether a sender confirms its close on every data rail, behind its writes, rather than once
     * on control rail 0 after its writes completed: where every rail's provider orders a send after
     * the writes before it (FI_ORDER_SAW). A write's completion at the sender says only that the
     * provider took it ({@code tcp}: into the socket); a confirmation on another connection can
     * overtake it, and the receiver would let its buffers go while the write is still on its way.
     * The data rails then keep zero-byte receives posted (the zero-byte receives of the endpoint).
     */
    public boolean confirmsCloseOnDataRails() {
        return sendsFollowWrites;
    }

    /**
     * Tells the engine which rails report the source of arrivals right: those granted FI_SOURCE,
     * for received messages; for remote writes too, but on {@code ofi_rxm}, which gives every
     * writer the same source ({@code SourcesIT}).
     */
    public void trustSources(ProgressEngine engine) {
        for (int rail = 0; rail < infos.size(); rail++) {
            boolean sources = (infos.get(rail).caps() & Fi.SOURCE) != 0;
            engine.trustSources(rail, sources, sources && policy(rail).reportsWriteSources());
        }
    }

    /** Whether the data rails keep zero-byte receives posted, for write notices and close signals. */
    public boolean dataRailsTakeZeroByteMessages() {
        return noticeAfterWrite || noticeAbove != Long.MAX_VALUE || sendsFollowWrites;
    }

    private Endpoint open(Domain domain) throws FabricException {
        CompletionQueue cq = domain.openCompletionQueue(CQ_SIZE);
        queues.add(cq);
        AddressVector av = domain.openAddressVector(AV_SIZE);
        avs.add(av);
        Endpoint ep = domain.openEndpoint(cq, av);
        endpoints.add(ep);
        ep.enable();
        return ep;
    }

    /**
     * Whether engine rail {@code rail} runs over connections that the provider makes on demand
     * ({@code ofi_rxm}): there a post to a peer whose connection broke is refused while a new one
     * is attempted.
     */
    public boolean connectsOnDemand(int rail) {
        return policy(rail).connectsOnDemand();
    }

    /** The provider policy of engine rail {@code rail}. */
    public ProviderPolicy policy(int rail) {
        return ProviderPolicy.of(infos.get(rail));
    }

    /** Each rail's provider policy, as the engine indexes rails. */
    private List<ProviderPolicy> policies() {
        return infos.stream().map(ProviderPolicy::of).toList();
    }

    /** Each rail's provider, as the engine indexes rails. */
    private List<String> providers() {
        return infos.stream().map(FabricInfo::provider).toList();
    }

    /** The registration view of these rails (for the registrar). */
    public Rails registrationView() {
        return registrationView;
    }

    /** The completion queues, data rails first: the progress engine's rails. */
    public List<CompletionQueue> queues() {
        return queues;
    }

    /**
     * The failure of an insert into engine rail {@code rail}'s address vector, which holds {@code
     * entries} addresses: where the provider's limit is known (shm: {@code SMR_MAX_PEERS}), the limit
     * named, as shm says nothing of its own (it inserts none, which the binding reports as FI_EINVAL).
     */
    public FabricException addressVectorFull(int rail, int entries, FabricException e) {
        ProviderPolicy policy = policy(rail);
        if (policy.addressVectorLimit() == 0) {
            return e;
        }
        return new FabricException("fi_av_insert (provider " + policy.provider() + ", which inserted nothing: its"
                + " address vector takes at most " + policy.addressVectorLimit() + " peers in libfabric 1.17,"
                + " SMR_MAX_PEERS, and this one holds " + entries + "; too many peers at once)", e.errno(),
                "Invalid argument");
    }

    /**
     * Whether a peer's address may leave engine rail {@code rail}'s address vector while the peer
     * lives: not on shm, which after a remove and a new insert of a peer still names the removed
     * entry as the source of what that peer sends (docs/FABRIC.md).
     */
    public boolean removesLivePeers(int rail) {
        return policy(rail).removesLivePeers();
    }

    /** The address vectors, indexed as the engine's rails. */
    public List<AddressVector> avs() {
        return avs;
    }

    public AddressVector av(int rail) {
        return avs.get(rail);
    }

    public Endpoint dataEndpoint(int rail) {
        return endpoints.get(rail);
    }

    public Endpoint controlEndpoint(int rail) {
        return endpoints.get(dataRails + rail);
    }

    /** Names of the endpoints {@code from} to {@code from + count - 1} (data rails first, then control). */
    public List<byte[]> names(int from, int count) throws FabricException {
        List<byte[]> names = new ArrayList<>(count);
        for (int i = from; i < from + count; i++) {
            names.add(endpoints.get(i).name());
        }
        return names;
    }

    /** This endpoint's own address on data rail {@code rail}: the flush reads through it. */
    public long self(int rail) {
        return self[rail];
    }

    /** Whether every data rail carries 8 bytes of CQ data (the segment length rides in the upper half). */
    public boolean wideImmediate() {
        return wideImmediate;
    }

    /**
     * The immediate data of a write or zero-byte message: the 32-bit word, and above it, where CQ data has 8
     * bytes, {@code upper} (a data segment's length, or the receiving communicator's token).
     */
    public long immediate(int word, long upper) {
        return wideImmediate ? upper << 32 | (word & 0xffffffffL) : word & 0xffffffffL;
    }

    /**
     * Deregisters what is still registered for these rails in endpoint scope (such registrations
     * must close before their endpoint, whoever forgot them), then closes endpoints, address vectors
     * and queues, adding failures to {@code problems}.
     */
    public void close(Registrar registrar, List<Exception> problems) {
        try {
            if (registrationView != null && registrationView.anyEndpointScope()) {
                int left = registrar.closeAll(registrationView);
                if (left > 0) {
                    LOG.log(System.Logger.Level.WARNING, "deregistered {0} buffers still registered for an endpoint"
                            + " at its close", left);
                }
            }
        } catch (MrException e) {
            problems.add(e);
        }
        for (List<? extends AutoCloseable> group : List.of(endpoints, avs, queues)) {
            for (int i = group.size() - 1; i >= 0; i--) {
                try {
                    group.get(i).close();
                } catch (Exception e) {
                    problems.add(e);
                }
            }
        }
    }
}
