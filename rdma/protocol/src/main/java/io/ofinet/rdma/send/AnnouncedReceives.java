package io.ofinet.rdma.send;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.Limits;
import java.util.Arrays;

/**
 * The receives a send communicator's receiver has announced, by mailbox slot: the announcement
 * decoded there, the sequence number of its receive's first buffer while sends may still go into
 * it, which of its buffers sends have taken, and whether it failed as a whole (a send's tag
 * matched none of its buffers). A slot's announcement is made the first time the slot is used, so
 * that a communicator holds only the slots it has used. Touched only with the endpoint held.
 */
final class AnnouncedReceives {
    private static final int MASK = (1 << Limits.SEQ_BITS) - 1;
    private static final int NONE = -1;

    private final Announcement[] announcements = new Announcement[Limits.WINDOW];
    /** Per slot: the sequence number of the announcement there, or {@link #NONE} when none is pending. */
    private final int[] announcedSeq = new int[Limits.WINDOW];
    /** Per slot: the buffers of its receive that sends have taken (a bit each). */
    private final int[] taken = new int[Limits.WINDOW];
    /** Per slot: no buffer had a send's tag, so the receive failed as a whole. */
    private final boolean[] failed = new boolean[Limits.WINDOW];

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

    /** Drops the slots no announcement is pending in, for an idle communicator; made again when used. */
    void dropIdle() {
        for (int slot = 0; slot < Limits.WINDOW; slot++) {
            if (announcedSeq[slot] == NONE) {
                announcements[slot] = null;
            }
        }
    }

    /** Checks that announcement {@code seq}'s slot is free. */
    void checkFree(int seq) throws RdmaException {
        int pending = announcedSeq[seq % Limits.WINDOW];
        if (pending != NONE) {
            throw new RdmaException(ErrorCategory.REMOTE, "announcement " + seq + (pending == seq ? " arrived twice"
                    : " arrived while the one for " + pending + " is still in use in its slot"));
        }
    }

    /** Announcement {@code seq}, decoded into its slot, is pending there with no buffer taken; returns the slot. */
    int open(int seq) {
        int slot = seq % Limits.WINDOW;
        announcedSeq[slot] = seq;
        taken[slot] = 0;
        failed[slot] = false;
        return slot;
    }

    /** Sends go no more into the receive announced in {@code slot}. */
    void close(int slot) {
        announcedSeq[slot] = NONE;
    }

    Announcement at(int slot) {
        return announcements[slot];
    }

    /** The sequence number of the receive announced in {@code slot}. */
    int seqAt(int slot) {
        return announcedSeq[slot];
    }

    boolean failed(int slot) {
        return failed[slot];
    }

    void fail(int slot) {
        failed[slot] = true;
    }

    /** A send took buffer {@code i} of the receive announced in {@code slot}. */
    void take(int slot, int i) {
        taken[slot] |= 1 << i;
    }

    /** The first buffer of the receive announced in {@code slot} not taken yet whose tag is {@code tag}, or -1. */
    int untaken(int slot, int tag) {
        Announcement announcement = announcements[slot];
        for (int i = 0; i < announcement.buffers(); i++) {
            if ((taken[slot] & (1 << i)) == 0 && announcement.tag(i) == tag) {
                return i;
            }
        }
        return -1;
    }

    /** The slot of the pending announcement that covers {@code seq}, or -1. */
    int covering(int seq) {
        for (int k = 0; k < Limits.MAX_RECVS; k++) {
            int u = (seq - k) & MASK;
            int slot = u % Limits.WINDOW;
            if (announcedSeq[slot] == u) {
                return k < announcements[slot].buffers() ? slot : -1;
            }
        }
        return -1;
    }

    /** Send {@code t} into the receive announced in {@code slot} went out (or failed): the slot is freed after its last. */
    boolean advance(int slot, int t) {
        if (((t - announcedSeq[slot]) & MASK) == announcements[slot].buffers() - 1) {
            announcedSeq[slot] = NONE;
        }
        return true;
    }
}
