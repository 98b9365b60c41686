package io.ofinet.rdma.send;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.comm.Timeline;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.seq.TagCounts;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;

/**
 * How a send communicator's queued sends meet the receiver's receives (docs/PROTOCOL.md, "Matching
 * by tag"): the k-th send with a tag fills the k-th receive buffer with that tag. Each send takes
 * its tag's next ordinal when it is posted; an announcement names each buffer's tag and ordinal;
 * a message that goes out before its buffer's announcement carries its tag and ordinal, and the
 * receiver finds the buffer by them.
 *
 * <p>The sends of one tag go out in the order they were posted; sends of different tags do not
 * wait for each other. The first queued send of its tag goes out as follows:
 * <ul>
 * <li>its buffer's announcement has arrived: as one tagged message where the buffer asks for that
 *     ({@link Announcement#TAGGED}), else eagerly when it is at most {@code eagerMaxSize} and a
 *     credit is free, else in RDMA writes; refused (on both sides, nothing written) when it does
 *     not fit the buffer;
 * <li>none has arrived, and it is at most {@code eagerMaxSize}: eagerly, with a credit;
 * <li>none has arrived, and it is larger: it waits for the announcement. With heads on
 *     (eagerHead), at least {@code eagerHeadMinSize} and no other send queued, its first {@code
 *     eagerMaxSize} bytes go out at once (its head), and the writes of the rest follow the
 *     announcement. Else, when none has come within {@code rtsDelayUs}, its request to send goes
 *     out, for a receive that sends no announcement to refuse it.
 * </ul>
 * Messages matched by tag (eager data, requests to send, heads) are numbered in the order they go
 * out; the receiver names that number in a refusal. Each
 * takes one of the communicator's credits, which the receiver returns as it uses them up. Touched
 * only with the endpoint held.
 */
final class SendSequencer {
    private static final int SEQS = 1 << Limits.SEQ_BITS;

    private final int eagerMax;
    /**
     * The smallest send that sends its head when it finds no announcement and no other send queued
     * (eagerHeadMinSize), or {@link Long#MAX_VALUE}: heads off (eagerHead).
     */
    private final long headMin;
    /** How long a send larger than {@link #eagerMax} waits for its announcement before its RTS. */
    private final long rtsDelayNanos;
    private final AnnouncedReceives announced = new AnnouncedReceives();
    /** The sends waiting to go out, or (request to send sent) for their announcement, in posting order. */
    private final SendQueue queue = new SendQueue(SendComm.MAX_REQUESTS);
    /** Per tag: the sends posted (the next send's ordinal), and those gone out of the queue. */
    private final TagCounts posted = new TagCounts();
    private final TagCounts gone = new TagCounts();
    /** Per message matched by tag: its send's tag and size, for a refusal that names it. */
    private final int[] messageTag = new int[SEQS];
    private final long[] messageSize = new long[SEQS];
    /** The number of the next message matched by tag. */
    private int nextMessage;
    private int credits = Limits.CREDITS;
    /** The receiver's count of the credits it returned, modulo 2^10, as the latest signal said. */
    private int returnedSeen;

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

    /** Credits not in use. */
    public int credits() {
        return credits;
    }

    /** Queues {@code request}, posted with {@code tag}: it takes the tag's next ordinal. */
    public void queue(SendRequest request, long address, long size, int tag, MrHandle mr) {
        request.start(address, size, tag, posted.next(tag), mr);
        if (Timeline.ON) {
            Timeline.record(Timeline.SEND_POSTED, tag, request.ordinal);
        }
        queue.add(request);
    }

    /** Fails every queued send with {@code cause} ({@code null}: drops them, failed already). */
    public void failQueued(RdmaException cause) {
        for (int q = 0; cause != null && q < queue.size(); q++) {
            queue.at(q).fail(cause);
        }
        queue.clear();
    }

    /**
     * Where announcement {@code seq} is decoded into: made the first time its slot is used, so
     * that a communicator holds only the slots it has used.
     */
    public Announcement slotFor(int seq) {
        return announced.slotFor(seq);
    }

    /** Drops the slots no announcement is open in, for an idle communicator; made again when used. */
    public void dropIdleSlots() {
        announced.dropIdle();
    }

    /** Checks that announcement {@code seq} may arrive now ({@link AnnouncedReceives#checkArrival}). */
    public void checkArrival(int seq) throws RdmaException {
        announced.checkArrival(seq);
    }

    /**
     * Announcement {@code seq} has been decoded into its slot: its buffers whose sends went out
     * before it came (matched by tag at the receiver) are taken already.
     */
    public void arrived(int seq) {
        int slot = announced.open(seq);
        Announcement announcement = announced.at(slot);
        for (int i = 0; i < announcement.buffers(); i++) {
            if (Timeline.ON) {
                Timeline.record(Timeline.ANNOUNCED, announcement.tag(i), announcement.ordinal(i));
            }
            if (ordinalGone(announcement.tag(i), announcement.ordinal(i))) {
                announced.take(slot, i);
                if (announced.seqAt(slot) != seq) {
                    return; // every buffer was taken: the slot closed
                }
            }
        }
    }

    /** Whether the send with {@code tag} and {@code ordinal} (modulo 2^16) has gone out of the queue. */
    private boolean ordinalGone(int tag, int ordinal) {
        return TagCounts.passed(gone.get(tag), ordinal);
    }

    /** Whether a queued send waits for something the control rails bring: an announcement, or credits. */
    public boolean awaitsAnnouncement() {
        return queue.size() > 0;
    }

    /**
     * The receiver has returned {@code total} credits since the connection began, modulo 2^10, for
     * the eager messages and requests to send it used up: those not counted yet come back. A total
     * seen already, or older than one seen, changes nothing (a signal the provider failed after it
     * was delivered goes again).
     */
    public void creditsReturned(int total) throws RdmaException {
        int count = (total - returnedSeen) & Limits.SEQ_MASK;
        if (count == 0 || count > SEQS / 2) {
            return;
        }
        if (credits + count > Limits.CREDITS) {
            throw new RdmaException(ErrorCategory.REMOTE, "the receiver returned " + count + " eager credits with "
                    + (Limits.CREDITS - credits) + " in use");
        }
        credits += count;
        returnedSeen = total;
    }

    /**
     * Sends queued sends, the first of each tag, in posting order, as far as announcements,
     * credits and operations allow; bounded by the queue.
     */
    public void progress(SendWrites writes) throws RdmaException {
        for (int q = 0; q < queue.size(); ) {
            SendRequest request = queue.at(q);
            if (request.ordinal != gone.get(request.tag) || !goes(request, writes)) {
                q++; // behind an earlier send of its tag, or waiting
                continue;
            }
            if (q >= queue.size() || queue.at(q) != request) {
                return; // its post failed and condemned the communicator, which emptied the queue
            }
            queue.removeAt(q);
            gone.next(request.tag);
        }
    }

    /** Whether {@code request}, first of its tag, went out of the queue now (sent, moving or failed). */
    private boolean goes(SendRequest request, SendWrites writes) {
        int found = announced.find(request.tag, request.ordinal);
        if (found < 0) {
            return !request.rtsSent() && byTag(request, writes);
        }
        return matched(request, found / Limits.MAX_RECVS, found % Limits.MAX_RECVS, writes);
    }

    /**
     * {@code request} goes out matched by its tag and ordinal, without its announcement: eagerly;
     * or, when larger, with its first {@link #eagerMax} bytes at once if it is at least {@link
     * #headMin} and no other send is queued (in a stream of sends the receiver's announcements are
     * on their way, and heads would only add copies), else as a request to send once that is due.
     *
     * @return whether it left the queue (an eager send, done)
     */
    private boolean byTag(SendRequest request, SendWrites writes) {
        if (eagerMax <= 0 || credits == 0) {
            return false; // without eager buffers or credits nothing goes out before its announcement
        }
        boolean eager = request.size <= eagerMax;
        boolean head = !eager && request.size >= headMin && queue.size() == 1 && !request.rtsTimed;
        if (!eager && !head && !rtsDue(request)) {
            return false;
        }
        int kind = eager ? EagerMessageHeader.KIND_EAGER
                : head ? EagerMessageHeader.KIND_HEAD : EagerMessageHeader.KIND_RTS;
        return sentByTag(request, kind, head ? eagerMax : 0, writes) && eager;
    }

    /**
     * Sends {@code request} as the next message matched by tag, of {@code kind} with {@code
     * headBytes} of its payload (a head's), taking a credit; false when no eager buffer is free.
     */
    private boolean sentByTag(SendRequest request, int kind, long headBytes, SendWrites writes) {
        int m = nextMessage;
        if (!writes.eager(request, m, kind, headBytes)) {
            return false;
        }
        credits--;
        messageTag[m] = request.tag;
        messageSize[m] = request.size;
        nextMessage = (m + 1) & Limits.SEQ_MASK;
        return true;
    }

    /**
     * Whether the request to send of {@code request} may go out: once it has waited {@link
     * #rtsDelayNanos} for its announcement (rtsDelayUs).
     */
    private boolean rtsDue(SendRequest request) {
        if (rtsDelayNanos == 0) {
            return true;
        }
        return request.rtsDue(System.nanoTime(), rtsDelayNanos);
    }

    /**
     * {@code request} meets its buffer {@code i} in the announcement in {@code slot}.
     *
     * @return whether it left the queue (sent, moving or failed); false when it must wait
     */
    private boolean matched(SendRequest request, int slot, int i, SendWrites writes) {
        Announcement announcement = announced.at(slot);
        int u = announced.seqAt(slot);
        if (request.size > announcement.length(i)) {
            String why = "isend: " + request.size + " bytes do not fit the " + announcement.length(i)
                    + "-byte receive buffer (tag " + request.tag + ")";
            if (request.rtsSent()) {
                // The receiver refused the request to send as well: nothing to tell it.
                request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, why));
            } else if (!writes.refuse(request, u, announcement.index(i), Immediate.ERROR_TRUNCATED, why)) {
                return false;
            }
            announced.take(slot, i);
            return true;
        }
        // A buffer that waits for a tagged message takes the send as one, however small.
        if (!request.rtsSent() && eagerMax > 0 && request.size <= eagerMax && credits > 0 && !announcement.tagged(i)) {
            if (!sentByTag(request, EagerMessageHeader.KIND_EAGER, 0, writes)) {
                return false;
            }
        } else if (!writes.write(request, announcement, i, u)) {
            return false;
        }
        announced.take(slot, i);
        return true;
    }

    /**
     * Whether message {@code seq} went as an eager message whose send completed: of the last {@link
     * Limits#WINDOW} messages matched by tag, of an eager size.
     */
    public boolean sentEager(int seq) {
        int behind = (nextMessage - seq) & Limits.SEQ_MASK;
        return behind > 0 && behind <= Limits.WINDOW && messageSize[seq] <= eagerMax;
    }

    /** The tag of message {@code seq}. */
    public int tagOf(int seq) {
        return messageTag[seq];
    }

    /** The size of message {@code seq}. */
    public long sizeOf(int seq) {
        return messageSize[seq];
    }

    /**
     * The receiver refused message {@code seq}, which did not fit its buffer. The send waiting with
     * that request to send fails and leaves the queue; a send already done cannot fail: the caller
     * counts and logs the refusal.
     *
     * @return whether it was a request to send (failed now, or failed already)
     */
    public boolean refused(int seq) {
        int behind = (nextMessage - seq) & Limits.SEQ_MASK;
        if (behind == 0 || behind > Limits.WINDOW || messageSize[seq] <= eagerMax) {
            return false;
        }
        for (int q = 0; q < queue.size(); q++) {
            SendRequest request = queue.at(q);
            if (request.rtsSent() && request.seq == seq) {
                request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, "isend: " + request.size + " bytes (tag "
                        + request.tag + ") do not fit the receive buffer they were matched with, the receiver reports"));
                queue.removeAt(q);
                gone.next(request.tag);
                return true;
            }
        }
        return true; // its send failed already, when its announcement showed the buffer too small
    }
}
