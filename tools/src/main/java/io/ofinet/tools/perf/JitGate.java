package io.ofinet.tools.perf;

/**
 * Keeps the JIT compilers' work out of the timed repetitions. Passing the untimed pass's gate
 * (every rank's compilers idle for {@code --jit-quiet} ms) does not mean they are done: a method
 * that crosses its compile threshold a moment later, or a rare branch that sends compiled code back
 * to the interpreter, starts a compilation that on two cores takes a core from the data path in
 * slices of milliseconds for as long as it runs (a 2 MiB allreduce ran at half its speed through
 * whole repetitions that way). So the warm-up is run again while any rank's compilers worked during
 * it, and a repetition during which they worked is run again after such a warm-up, a bounded
 * number of times; how many repetitions were run again is reported beside the result.
 */
final class JitGate {
    /** The most times a size's warm-up runs. */
    static final int MAX_WARMUPS = 10;
    /** Repetitions a call may run again even when it times fewer. */
    static final int MIN_REDO_BUDGET = 3;

    /** Runs {@code iterations} of the test, returning its time per iteration. */
    @FunctionalInterface
    interface Rounds {
        double run(int iterations) throws Exception;
    }

    /** Whether any rank says {@code true}: a collective over every rank, which all call in step. */
    @FunctionalInterface
    interface Vote {
        boolean any(boolean mine) throws Exception;
    }

    private final JitActivity jit;
    private final Vote vote;
    private final Rounds rounds;
    private final int warmUpIterations;
    private int redone;

    /**
     * @param rounds the test, for the warm-up and the repetitions
     * @param warmUpIterations the iterations of one warm-up
     */
    JitGate(JitActivity jit, Vote vote, Rounds rounds, int warmUpIterations) {
        this.jit = jit;
        this.vote = vote;
        this.rounds = rounds;
        this.warmUpIterations = warmUpIterations;
    }

    /** Runs the warm-up until no rank's compilers worked during it, at most {@link #MAX_WARMUPS} times. */
    void warmUp() throws Exception {
        for (int n = 0; n < MAX_WARMUPS; n++) {
            long before = jit.work();
            rounds.run(warmUpIterations);
            if (!vote.any(jit.workedSince(before))) {
                return;
            }
        }
    }

    /**
     * Times {@code reps} repetitions of {@code iterations}. One during which any rank's compilers
     * worked is run again, after the {@link #warmUp} until the compilers are quiet, at most {@code
     * reps} or {@link #MIN_REDO_BUDGET} times in all, whichever is more, for the call ({@link
     * #redone}).
     */
    double[] repetitions(int iterations, int reps) throws Exception {
        double[] times = new double[reps];
        redone = 0;
        int budget = Math.max(reps, MIN_REDO_BUDGET);
        for (int k = 0; k < reps; k++) {
            long before = jit.work();
            times[k] = rounds.run(iterations);
            if (redone < budget && vote.any(jit.workedSince(before))) {
                redone++;
                k--;
                warmUp();
            }
        }
        return times;
    }

    /** How many repetitions the last {@link #repetitions} ran again. */
    int redone() {
        return redone;
    }
}
