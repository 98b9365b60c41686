package io.ofinet.rdma.rail;

import io.ofinet.config.EagerHead;
import io.ofinet.config.Setting;
import io.ofinet.config.WriteNotice;
import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.mr.DomainContext;
import io.ofinet.mr.MrException;
import io.ofinet.mr.Rails;
import io.ofinet.mr.Registrar;
import io.ofinet.rdma.progress.ProgressEngine;
import java.util.ArrayList;
import java.util.List;

/**
 * The libfabric objects of an endpoint's rails: for each data rail and then each control rail (a
 * control rail on the domain of its data rail), a completion queue, an address vector and an
 * endpoint bound to both. Rails are indexed data rails first, then control rails, as the progress
 * engine's queues are. Closing closes the endpoints, then the address vectors, then the queues,
 * each in reverse order of opening. What the rails' providers make of the protocol (write notices,
 * tagged messages, heads, immediate data) is the set's {@link ProviderChoices}, made when it opens.
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
    /** Each rail's offer (provider, caps, ordering), as the engine indexes rails. */
    private final List<FabricInfo> infos = new ArrayList<>();
    private final ProviderChoices choices;

    public RailSet(int dataRails) {
        this.dataRails = dataRails;
        this.self = new long[dataRails];
        this.choices = new ProviderChoices(dataRails, infos);
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
        }
        for (int onData : controlOnData) {
            controlEndpoints.add(open(contexts.get(onData).domain()));
            infos.add(contexts.get(onData).info());
        }
        registrationView = new Rails(contexts, dataEndpoints, controlEndpoints, controlOnData);
        for (int r = 0; r < dataRails; r++) {
            self[r] = avs.get(r).insert(endpoints.get(r).name());
        }
        choices.choose(notice);
    }

    /** Whether the layout asks for tagged messages on {@code provider} ({@link ProviderChoices#wantsTagged}). */
    public static boolean wantsTagged(WriteNotice notice, String provider, int dataRails) {
        return ProviderChoices.wantsTagged(notice, provider, dataRails);
    }

    /** The largest receive buffer that takes one tagged message, or 0 ({@link ProviderChoices#taggedUpTo}). */
    public long taggedUpTo() {
        return choices.taggedUpTo();
    }

    /** The largest eager payload before the rails' own bound ({@link ProviderChoices#eagerMaxSize}). */
    public long eagerMaxSize(Setting<Long> setting, long minStripeSize) {
        return choices.eagerMaxSize(setting, minStripeSize);
    }

    /**
     * The largest message every data rail completes at once, whatever its peer does ({@link
     * ProviderChoices#messagesCompleteAtOnceUpTo}).
     */
    public long messagesCompleteAtOnceUpTo() {
        return choices.messagesCompleteAtOnceUpTo();
    }

    /** Whether large sends that find no announcement send their heads ({@link ProviderChoices#sendsHeads}). */
    public boolean sendsHeads(EagerHead setting) {
        return choices.sendsHeads(setting);
    }

    /** Whether a write of {@code length} bytes is announced by a notice message ({@link ProviderChoices#noticeFor}). */
    public boolean noticeFor(long length) {
        return choices.noticeFor(length);
    }

    /**
     * Above how many bytes a write is announced by a notice message, as {@link #noticeFor} decides:
     * -1 for every write, {@code Long.MAX_VALUE} for none. Both sides of a connection must agree.
     */
    public long writesNoticedAbove() {
        return choices.writesNoticedAbove();
    }

    /** Whether every write is announced by a message after it ({@link ProviderChoices#noticeAfterWrite}). */
    public boolean noticeAfterWrite() {
        return choices.noticeAfterWrite();
    }

    /** Whether a write's notice may be posted right behind the write ({@link ProviderChoices#noticeBehindWrite}). */
    public boolean noticeBehindWrite() {
        return choices.noticeBehindWrite();
    }

    /**
     * Whether a sender confirms its close on every data rail, behind its writes ({@link
     * ProviderChoices#confirmsCloseOnDataRails}).
     */
    public boolean confirmsCloseOnDataRails() {
        return choices.confirmsCloseOnDataRails();
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

    /**
     * Whether the data rails keep zero-byte receives posted, for write notices and close signals
     * ({@link ProviderChoices#dataRailsTakeZeroByteMessages}).
     */
    public boolean dataRailsTakeZeroByteMessages() {
        return choices.dataRailsTakeZeroByteMessages();
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

    /** Whether every data rail carries 8 bytes of CQ data ({@link ProviderChoices#wideImmediate}). */
    public boolean wideImmediate() {
        return choices.wideImmediate();
    }

    /** The immediate data of a write or zero-byte message ({@link ProviderChoices#immediate}). */
    public long immediate(int word, long upper) {
        return choices.immediate(word, upper);
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
