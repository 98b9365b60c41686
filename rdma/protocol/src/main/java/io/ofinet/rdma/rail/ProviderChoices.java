package io.ofinet.rdma.rail;

import io.ofinet.config.EagerHead;
import io.ofinet.config.Setting;
import io.ofinet.config.Source;
import io.ofinet.config.WriteNotice;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.Limits;
import java.util.List;

/**
 * What the providers of an endpoint's rails, with the layout's settings, make of its protocol:
 * how the targets of writes learn of them (immediate data, or a notice message behind or after the
 * write), which receive buffers take one tagged message, whether large sends send their heads,
 * where a sender confirms its close, and how wide immediate data is. Chosen once, when {@link
 * RailSet} has opened every rail; read on the data path after that.
 */
final class ProviderChoices {
    /** One log for the rails, whichever class writes it. */
    private static final System.Logger LOG = System.getLogger(RailSet.class.getName());

    private final int dataRails;
    /** Each rail's offer (provider, caps, ordering), as the engine indexes rails: {@link RailSet}'s list. */
    private final List<FabricInfo> infos;
    private boolean wideImmediate = true;
    private boolean noticeAfterWrite;
    /** Writes longer than this are announced by a write notice message even where others carry immediate data. */
    private long noticeAbove = Long.MAX_VALUE;
    private boolean sendsFollowWrites = true;
    /** Receive buffers up to this size get a tagged receive and one tagged message (writeNotice tagged); 0: none. */
    private long taggedUpTo;

    ProviderChoices(int dataRails, List<FabricInfo> infos) {
        this.dataRails = dataRails;
        this.infos = infos;
    }

    /**
     * Makes the choices, once every rail is open, and logs them.
     *
     * @param notice how the targets of writes learn of them
     */
    void choose(WriteNotice notice) {
        for (FabricInfo info : infos) {
            sendsFollowWrites &= info.sendsFollowWrites();
        }
        for (int r = 0; r < dataRails; r++) {
            wideImmediate &= infos.get(r).cqDataSizeBytes() >= 8;
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
            taggedUpTo = rxmBound(RxmEagerLimit.bytes());
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
    static boolean wantsTagged(WriteNotice notice, String provider, int dataRails) {
        return notice == WriteNotice.TAGGED_SEND_INSTEAD || notice == WriteNotice.AUTO && dataRails == 1
                && new ProviderPolicy(provider).crashesOnCutImmediates();
    }

    /**
     * The largest receive buffer that gets a tagged receive and, from the sender, one tagged
     * message (above {@code eagerMaxSize}); 0 when none does. On {@code ofi_rxm} it is rxm's eager
     * limit ({@link RxmEagerLimit}): a larger message would go through rxm's own rendezvous.
     */
    long taggedUpTo() {
        return taggedUpTo;
    }

    /**
     * The largest eager payload before the rails' own bound: {@code eagerMaxSize} as set, else the
     * smallest default of the data rails' providers ({@link ProviderPolicy#eagerMaxSizeByDefault}),
     * as long as a default above the parameter's stays within {@code minStripeSize} and, on rails
     * of {@code ofi_rxm}, within rxm's eager limit ({@link RxmEagerLimit}, beyond which rxm's own
     * rendezvous would carry the message); else the parameter's default.
     */
    long eagerMaxSize(Setting<Long> setting, long minStripeSize) {
        return eagerMaxSize(setting, minStripeSize, RxmEagerLimit.bytes());
    }

    /** {@link #eagerMaxSize(Setting, long)} with rxm's eager limit given ({@code rxmLimit}, bytes). */
    long eagerMaxSize(Setting<Long> setting, long minStripeSize, long rxmLimit) {
        long asSet = setting.value();
        if (setting.source() != Source.DEFAULT) {
            return asSet;
        }
        long raised = policies().subList(0, dataRails).stream().mapToLong(p -> p.eagerMaxSizeByDefault(asSet)).min()
                .orElse(asSet);
        boolean beyondRxm = raised + EagerMessageHeader.BYTES > rxmBound(rxmLimit);
        return raised > asSet && (raised > minStripeSize || beyondRxm) ? asSet : raised;
    }

    /**
     * {@code rxmLimit} where every data rail is {@code ofi_rxm}'s and so bounded by its eager
     * limit ({@link ProviderPolicy#taggedBoundedByRxmEagerLimit}); unbounded elsewhere.
     */
    private long rxmBound(long rxmLimit) {
        return policies().subList(0, dataRails).stream().allMatch(ProviderPolicy::taggedBoundedByRxmEagerLimit)
                ? rxmLimit : Long.MAX_VALUE;
    }

    /**
     * The largest message every data rail completes at once, whatever its peer does: libfabric
     * 1.17's shm carries a message of up to its inject size inline in the command, and one above
     * it through its response queue, which completes in order across all peers (a stopped peer's
     * messages hold up everyone's). Eager messages stay within it. Unbounded elsewhere.
     */
    long messagesCompleteAtOnceUpTo() {
        return policies().stream().mapToLong(ProviderPolicy::messagesCompleteAtOnceUpTo).min().orElse(Long.MAX_VALUE);
    }

    /**
     * Whether large sends that find no announcement send their heads ({@link EagerHead}): as
     * set, or by default where every data rail is {@code tcp}. Never with as many data rails as a
     * write's immediate data counts segments, as the head is one more.
     */
    boolean sendsHeads(EagerHead setting) {
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
    boolean noticeFor(long length) {
        return noticeAfterWrite || length > noticeAbove;
    }

    /** {@link #noticeFor} as one number: writes longer than it are noticed (-1: every write; {@code Long.MAX_VALUE}: none). */
    long writesNoticedAbove() {
        return noticeAfterWrite ? -1 : noticeAbove;
    }

    /**
     * Whether every write is announced by a zero-byte message after it instead of by immediate data
     * ({@link WriteNotice}), and announcements are sent rather than written; then every rail
     * keeps receives posted for the write notices.
     */
    boolean noticeAfterWrite() {
        return noticeAfterWrite;
    }

    /**
     * Whether a write's notice may be posted right behind the write instead of after its
     * completion: every rail's provider orders a send after the writes before it (FI_ORDER_SAW).
     * On {@code tcp} that keeps a notice from queueing behind the later writes of a window.
     */
    boolean noticeBehindWrite() {
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
    boolean confirmsCloseOnDataRails() {
        return sendsFollowWrites;
    }

    /**
     * Whether the data rails keep zero-byte receives posted: for the notice messages of writes, or
     * for the close confirmations a sender sends there ({@link #confirmsCloseOnDataRails}).
     */
    boolean dataRailsTakeZeroByteMessages() {
        return noticeAfterWrite || noticeAbove != Long.MAX_VALUE || sendsFollowWrites;
    }

    /** Whether every data rail carries 8 bytes of CQ data (the segment length rides in the upper half). */
    boolean wideImmediate() {
        return wideImmediate;
    }

    /**
     * The immediate data of a write or zero-byte message: the 32-bit word, and above it, where CQ data has 8
     * bytes, {@code upper} (a data segment's length, or the receiving communicator's token).
     */
    long immediate(int word, long upper) {
        return wideImmediate ? upper << 32 | (word & 0xffffffffL) : word & 0xffffffffL;
    }

    /** Each rail's provider policy, as the engine indexes rails. */
    private List<ProviderPolicy> policies() {
        return infos.stream().map(ProviderPolicy::of).toList();
    }

    /** Each rail's provider, as the engine indexes rails. */
    private List<String> providers() {
        return infos.stream().map(FabricInfo::provider).toList();
    }
}
