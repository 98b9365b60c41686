package io.ofinet.rdma.progress;

/**
 * Which rails a step of the progress engine reads. Rails from the first quiet one on are read
 * only every few steps (a power of two), unless operations of ours to peers are in flight there or
 * the endpoint awaits something there; every other rail is read at every step. Until {@link #from}
 * names a first quiet rail, none is quiet.
 *
 * <p>Held by the engine and its {@link Destinations}, which count what they post and what lands;
 * not thread-safe, like the engine.
 */
final class QuietRails {
    /** Rails from this one on are quiet. */
    private int first = Integer.MAX_VALUE;
    private int every = 1;
    /** Operations to peers in flight on the quiet rails: their completions are awaited. */
    private int inFlight;
    private boolean expected;
    private int steps;

    /** As {@link ProgressEngine#quietRailsFrom}. */
    void from(int firstQuiet, int everySteps) {
        if (Integer.bitCount(everySteps) != 1) {
            throw new IllegalArgumentException("every " + everySteps + " is not a power of two");
        }
        this.first = firstQuiet;
        this.every = everySteps;
    }

    /** As {@link ProgressEngine#expectOnQuietRails}. */
    void expect(boolean expect) {
        this.expected = expect;
    }

    /** An operation to {@code peer} was posted. */
    void posted(PeerQueue peer) {
        if (peer.rail >= first && peer.remote()) {
            inFlight++;
        }
    }

    /** An operation to {@code peer} completed or failed. */
    void landed(PeerQueue peer) {
        if (peer.rail >= first && peer.remote()) {
            inFlight--;
        }
    }

    /** How many of the {@code rails} rails this step reads: all of them, or only those before the quiet ones. */
    int toRead(int rails) {
        if (rails > first && inFlight == 0 && !expected && (++steps & (every - 1)) != 0) {
            return first;
        }
        return rails;
    }
}
