package io.ofinet.rdma.send;

import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import java.util.ArrayDeque;

/**
 * How a send communicator's queued sends meet the receiver's receives (docs/PROTOCOL.md, "Eager
 * messages"). Every send takes the next message sequence number, and a receive of n buffers takes
 * n consecutive ones, so that a send needs no announcement to know its number. An announcement, written into
 * the mailbox slot of its receive's first number, covers the numbers of its buffers.
 *
 * <p>The oldest queued send goes out as follows:
 * <ul>
 * <li>its announcement has arrived: into the first buffer not yet taken whose tag matches —
 *     as one tagged message where the buffer asks for that ({@link Announcement#TAGGED}), else
 *     eagerly (with the buffer's index) when it is at most {@code eagerMaxSize}, else in RDMA
 *     writes; refused when no buffer has the tag or it does not fit;
 *     <li>none has arrived, and it is at most {@code eagerMaxSize}: eagerly, to be matched by its
 *     tag at the receiver;
 * <li>none has arrived, and it is larger: it waits for the announcement, and later sends wait
 *     behind it. With heads on (eagerHead), at least {@code eagerHeadMinSize} and no send behind
 *     it, its first {@code eagerMaxSize} bytes go out at once with its tag and size (its head),
 *     and the writes of the rest follow the announcement. Else, when none has come within
 *     {@code rtsDelayUs}, its request to send (its tag and size, matched by its tag) goes out, for a
 *     receive that sends no announcement to refuse it. A head serves as the request to send too.
 * </ul>
 * So within a receive the sends matched by tag come first, in sequence order, and both sides give
 * each the first untaken buffer with its tag in that order; sends after the announcement
 * arrived carry the buffer's index. When an announcement arrives, the sends already matched by
 * tag are replayed over it. Each eager message or request to send takes one of the communicator's credits,
 * which the receiver returns as it uses them up. Touched only with the endpoint held.
 */
final class SendSequencer {
    private static final int SEQS = 1 << Limits.SEQ_BITS;
    private static final int MASK = SEQS - 1;

    private final int eagerMax;
    /**
     * The smallest send that sends its head when it finds no announcement and no send behind it
     * (eagerHeadMinSize), or {@link Long#MAX_VALUE}: heads off (eagerHead).
     */
    private final long headMin;
    /** How long a send larger than {@link #eagerMax} waits at the head for its announcement before its RTS. */
    private final long rtsDelayNanos;
    private final AnnouncedReceives announced = new AnnouncedReceives();
    /** Per sequence number: the tag and size of a send matched by tag, for the replay. */
    private final int[] byTagTag = new int[SEQS];
    private final long[] byTagSize = new long[SEQS];
    /** Per sequence number: the buffer the replay gave a send, or {@link #NO_TAG} / {@link #TRUNCATED}. */
    private final int[] replayed = new int[SEQS];
    private static final int NO_TAG = -1;
    private static final int TRUNCATED = -2;
    /** The sequence number of the oldest queued send. */
    private int nextSeq;
    private int credits = Limits.CREDITS;

    /** A sequencer for a send communicator of the endpoint whose parts are {@code parts}. */
    SendSequencer(CommParts parts) {
        this(parts.eagerMax(), parts.params().rtsDelayNanos(), parts.rails().sendsHeads(parts.params().eagerHead())
                ? Math.max(parts.params().eagerHeadMinSizeBytes(), parts.eagerMax() + 1) : Long.MAX_VALUE);
    }

    /**
     * @param eagerMaxSize the largest eager payload (0: none)
     * @param headMinSize the smallest send whose head goes out ahead of its announcement ({@link Long#MAX_VALUE}: heads off)
     */
    SendSequencer(long eagerMaxSize, long rtsDelayNanos, long headMinSize) {
        this.eagerMax = (int) Math.min(eagerMaxSize, Integer.MAX_VALUE);
        this.headMin = eagerMax > 0 ? headMinSize : Long.MAX_VALUE;
        this.rtsDelayNanos = rtsDelayNanos;
    }

    /** The sequence number of the oldest send not yet gone out. */
    public int nextSeq() {
        return nextSeq;
    }

    /** Credits not in use. */
    public int credits() {
        return credits;
    }

    /**
     * Where announcement {@code seq} is decoded into, once {@link #checkArrival} allowed it: made
     * the first time its slot is used, so that a communicator holds only the slots it has used.
     */
    public Announcement slotFor(int seq) {
        return announced.slotFor(seq);
    }

    /** Drops the slots no announcement is pending in, for an idle communicator; made again when used. */
    public void dropIdleSlots() {
        announced.dropIdle();
    }

    /**
     * Checks that announcement {@code seq} may arrive now: within the window ahead of the
     * oldest queued send, or behind it by no more than eager sends can have run ahead, and its
     * slot free.
     */
    public void checkArrival(int seq) throws RdmaException {
        int ahead = (seq - nextSeq) & MASK;
        int behind = (nextSeq - seq) & MASK;
        if (ahead >= Limits.WINDOW && behind > Limits.WINDOW + Limits.CREDITS) {
            throw new RdmaException(ErrorCategory.REMOTE, "announcement " + seq + " is past the window of "
                    + Limits.WINDOW + " from " + nextSeq);
        }
        announced.checkFree(seq);
    }

    /**
     * Announcement {@code seq} has been decoded into its slot: the sends before the head that it
     * covers (sent matched by tag), and the head's request to send, are replayed over it.
     */
    public void arrived(int seq, boolean rtsSent) {
        int slot = announced.open(seq);
        Announcement announcement = announced.at(slot);
        int sent = (nextSeq - seq) & MASK;
        if (sent > Limits.WINDOW + Limits.CREDITS) {
            return; // ahead of the head: nothing was sent into it yet
        }
        int replay = Math.min(announcement.buffers(), sent + (rtsSent ? 1 : 0));
        for (int k = 0; k < replay; k++) {
            int t = (seq + k) & MASK;
            int i = announced.failed(slot) ? -1 : announced.untaken(slot, byTagTag[t]);
            if (i < 0) {
                replayed[t] = NO_TAG;
                announced.fail(slot);
            } else {
                announced.take(slot, i);
                replayed[t] = byTagSize[t] > announcement.length(i) ? TRUNCATED : i;
            }
        }
        if (sent >= announcement.buffers()) {
            announced.close(slot); // every send of it went out before it came
        }
    }

    /** Whether {@code head}, the oldest queued send, waits for its announcement or for credits. */
    public boolean awaitsAnnouncement(SendRequest head) {
        return announced.covering(nextSeq) < 0 && (eagerMax <= 0 || head.size > eagerMax || credits == 0);
    }

    /** The receiver used up {@code count} eager messages or requests to send. */
    public void creditsReturned(int count) throws RdmaException {
        if (count < 1 || credits + count > Limits.CREDITS) {
            throw new RdmaException(ErrorCategory.REMOTE, "the receiver returned " + count + " eager credits with "
                    + (Limits.CREDITS - credits) + " in use");
        }
        credits += count;
    }

    /**
     * Sends queued sends, oldest first, as far as announcements, credits and operations allow;
     * bounded by the queue.
     */
    public void progress(ArrayDeque<SendRequest> queue, SendWrites writes) throws RdmaException {
        for (int budget = queue.size(); budget > 0 && !queue.isEmpty(); budget--) {
            SendRequest request = queue.peek();
            int t = nextSeq;
            int slot = announced.covering(t);
            if (slot < 0) {
                if (!byTag(request, t, writes, queue.size() == 1)) {
                    return;
                }
                if (request.rtsSent()) {
                    return; // it waits for its announcement; later sends wait behind it
                }
            } else if (!matched(request, t, slot, writes)) {
                return;
            }
            queue.poll();
            nextSeq = (t + 1) & MASK;
        }
    }

    /**
     * The head goes out matched by tag: eagerly; or, when larger, with its first {@link #eagerMax}
     * bytes at once if it is at least {@link #headMin} and no send waits behind it ({@code alone}:
     * in a stream of sends the receiver's announcements are on their way, and heads would only
     * add copies), else as a request to send once that is due. False when it must wait.
     */
    private boolean byTag(SendRequest request, int t, SendWrites writes, boolean alone) {
        if (request.rtsSent()) {
            return true;
        }
        if (eagerMax <= 0) {
            return false; // without eager buffers at the receiver nothing goes out before its announcement
        }
        if (credits == 0) {
            return false;
        }
        boolean eager = request.size <= eagerMax;
        boolean head = !eager && request.size >= headMin && alone && !request.rtsTimed;
        if (!eager && !head && !rtsDue(request)) {
            return false;
        }
        int kind = eager ? EagerMessageHeader.KIND_EAGER
                : head ? EagerMessageHeader.KIND_HEAD : EagerMessageHeader.KIND_RTS;
        if (!writes.eager(request, t, EagerMessageHeader.BY_TAG, kind, head ? eagerMax : 0)) {
            return false;
        }
        credits--;
        byTagTag[t] = request.tag;
        byTagSize[t] = request.size;
        return true;
    }

    /**
     * Whether the request to send of {@code request}, the head, may go out: once it has waited {@link
     * #rtsDelayNanos} for its announcement (rtsDelayUs).
     */
    private boolean rtsDue(SendRequest request) {
        if (rtsDelayNanos == 0) {
            return true;
        }
        return request.rtsDue(System.nanoTime(), rtsDelayNanos);
    }

    /**
     * The head meets the announcement in {@code slot}: the buffer the replay gave it (after a
     * request to send), or the first untaken one with its tag. False when it must wait.
     */
    private boolean matched(SendRequest request, int t, int slot, SendWrites writes) {
        Announcement announcement = announced.at(slot);
        int u = announced.seqAt(slot);
        int i;
        if (request.rtsSent()) {
            i = replayed[t];
            if (i < 0) {
                // The receiver refused the request to send as well: nothing to tell it.
                request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, i == NO_TAG
                        ? "isend: no buffer of the posted receive " + u + " has tag " + request.tag
                        : "isend: " + request.size + " bytes do not fit their receive buffer (tag " + request.tag + ")"));
                return announced.advance(slot, t);
            }
        } else if (announced.failed(slot)) {
            request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, "isend: the posted receive " + u
                    + " failed: an earlier send's tag matched none of its buffers"));
            return announced.advance(slot, t);
        } else {
            i = announced.untaken(slot, request.tag);
            if (i < 0) {
                if (!writes.refuse(request, u, 0, Immediate.ERROR_NO_TAG, "isend: no buffer of the posted receive "
                        + u + " has tag " + request.tag)) {
                    return false;
                }
                announced.fail(slot);
                return announced.advance(slot, t);
            }
            if (request.size > announcement.length(i)) {
                if (!writes.refuse(request, u, announcement.index(i), Immediate.ERROR_TRUNCATED, "isend: " + request.size
                        + " bytes do not fit the " + announcement.length(i) + "-byte receive buffer (tag " + request.tag + ")")) {
                    return false;
                }
                announced.take(slot, i);
                return announced.advance(slot, t);
            }
            // A buffer that waits for a tagged message takes the send as one, however small.
            if (eagerMax > 0 && request.size <= eagerMax && credits > 0 && !announcement.tagged(i)) {
                if (!writes.eager(request, t, announcement.index(i), EagerMessageHeader.KIND_EAGER, 0)) {
                    return false;
                }
                credits--;
                announced.take(slot, i);
                return announced.advance(slot, t);
            }
        }
        if (!writes.write(request, announcement, i, u)) {
            return false;
        }
        announced.take(slot, i);
        return announced.advance(slot, t);
    }

    /**
     * Whether message {@code seq} went as an eager message whose send completed: the last {@link
     * Limits#WINDOW} sequence numbers sent, of an eager size.
     */
    public boolean sentEager(int seq) {
        int behind = (nextSeq - seq) & MASK;
        return behind > 0 && behind <= Limits.WINDOW && byTagSize[seq] <= eagerMax;
    }

    /** The tag of the message sent as {@code seq}. */
    public int tagOf(int seq) {
        return byTagTag[seq];
    }

    /** The size of the message sent as {@code seq}. */
    public long sizeOf(int seq) {
        return byTagSize[seq];
    }

    /**
     * The receiver refused message {@code seq} (reason {@link Immediate#ERROR_TRUNCATED} or {@link
     * Immediate#ERROR_NO_TAG}), sent matched by tag. The head waiting with a request to send for it fails
     * and is dequeued; a send already done cannot fail: the caller counts and logs the refusal.
     *
     * @return whether it was a request to send (the head's, failed now, or one that failed already)
     */
    public boolean refused(int seq, ArrayDeque<SendRequest> queue, int reason) {
        if (byTagSize[seq] > eagerMax && seq != nextSeq) {
            return true; // a request to send whose send failed already, by the replay over its announcement
        }
        SendRequest head = queue.peek();
        if (head != null && head.rtsSent() && seq == nextSeq) {
            head.fail(new RdmaException(ErrorCategory.INVALID_USAGE, reason == Immediate.ERROR_TRUNCATED
                    ? "isend: " + head.size + " bytes (tag " + head.tag + ") do not fit the receive buffer they were"
                            + " matched with, the receiver reports"
                    : "isend: no buffer of the posted receive has tag " + head.tag + ", the receiver reports"));
            queue.poll();
            nextSeq = (nextSeq + 1) & MASK;
            return true;
        }
        return false;
    }
}
