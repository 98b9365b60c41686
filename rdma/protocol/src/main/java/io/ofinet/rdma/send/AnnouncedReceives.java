package io.ofinet.rdma.send;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.Limits;
import java.util.Arrays;

/**
 * The receives a send communicator's receiver has announced, by mailbox slot: the announcement
 * decoded there and which of its buffers sends have taken, while some buffer is still untaken (an
 * open slot). A send finds its buffer by tag and ordinal among the open slots. A slot's
 * announcement is made the first time the slot is used, so that a communicator holds only the
 * slots it has used. Touched only with the endpoint held.
 */
final class AnnouncedReceives {
    private static final int NONE = -1;

    private final Announcement[] announcements = new Announcement[Limits.WINDOW];
    /** Per slot: the sequence number of the announcement there, or {@link #NONE} when none is open. */
    private final int[] announcedSeq = new int[Limits.WINDOW];
    /** Per slot: the buffers of its receive that sends have taken (a bit each). */
    private final int[] taken = new int[Limits.WINDOW];
    /** The open slots, oldest announcement first. */
    private final int[] open = new int[Limits.WINDOW];
    private int openCount;

    AnnouncedReceives() {
        Arrays.fill(announcedSeq, NONE);
    }

    /** Where announcement {@code seq} is decoded into, made the first time its slot is used. */
    Announcement slotFor(int seq) {
        int slot = seq % Limits.WINDOW;
        Announcement announcement = announcements[slot];
        if (announcement == null) {
            announcement = new Announcement();
            announcements[slot] = announcement;
        }
        return announcement;
    }

    /** Drops the slots no announcement is open in, for an idle communicator; made again when used. */
    void dropIdle() {
        for (int slot = 0; slot < Limits.WINDOW; slot++) {
            if (announcedSeq[slot] == NONE) {
                announcements[slot] = null;
            }
        }
    }

    /**
     * Checks that announcement {@code seq} may arrive now: not open already. (Where it stands in the
     * receiver's numbers this side cannot tell: receives whose buffers all take eager messages
     * take numbers and send no announcement.)
     */
    void checkArrival(int seq) throws RdmaException {
        if (announcedSeq[seq % Limits.WINDOW] == seq) {
            throw new RdmaException(ErrorCategory.REMOTE, "announcement " + seq + " arrived twice");
        }
    }

    /**
     * Announcement {@code seq}, decoded into its slot, is open there with no buffer taken; returns
     * the slot. An announcement still open there is of a receive the receiver has ended (its
     * numbers are 256 behind), and goes.
     */
    int open(int seq) {
        int slot = seq % Limits.WINDOW;
        if (announcedSeq[slot] != NONE) {
            close(slot);
        }
        announcedSeq[slot] = seq;
        taken[slot] = 0;
        open[openCount++] = slot;
        return slot;
    }

    /** Sends go no more into the receive announced in {@code slot}. */
    private void close(int slot) {
        announcedSeq[slot] = NONE;
        for (int k = 0; k < openCount; k++) {
            if (open[k] == slot) {
                System.arraycopy(open, k + 1, open, k, openCount - k - 1);
                openCount--;
                return;
            }
        }
    }

    Announcement at(int slot) {
        return announcements[slot];
    }

    /** The sequence number of the receive announced in {@code slot}. */
    int seqAt(int slot) {
        return announcedSeq[slot];
    }

    /** A send took buffer {@code i} of the receive announced in {@code slot}: the slot closes with its last. */
    void take(int slot, int i) {
        taken[slot] |= 1 << i;
        if (taken[slot] == (1 << announcements[slot].buffers()) - 1) {
            close(slot);
        }
    }

    /**
     * The open buffer with {@code tag} and {@code ordinal} (modulo 2^16), as {@code slot * 8 +
     * buffer}, or -1 when no open announcement has it.
     */
    int find(int tag, int ordinal) {
        int wanted = ordinal & Limits.ORDINAL_MASK;
        for (int k = 0; k < openCount; k++) {
            int slot = open[k];
            Announcement announcement = announcements[slot];
            for (int i = 0; i < announcement.buffers(); i++) {
                if ((taken[slot] & (1 << i)) == 0 && announcement.tag(i) == tag && announcement.ordinal(i) == wanted) {
                    return slot * Limits.MAX_RECVS + i;
                }
            }
        }
        return -1;
    }
}
