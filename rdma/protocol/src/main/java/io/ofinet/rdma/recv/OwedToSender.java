package io.ofinet.rdma.recv;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.Ops;
import io.ofinet.rdma.op.OwedWords;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.Signal;

/**
 * What a receive communicator owes its sender for the eager messages and requests to send it took
 * in (docs/PROTOCOL.md, "Credits"): a credit for each one used up, returned in batches, and a
 * refusal for each that did not fit its buffer, sent before any credit. A signal that finds no
 * operation free stays owed, and goes at the next return of credits or the communicator's next look
 * at its stalls. So does one the provider fails (rxm fails what a connection reset between two live
 * peers carried, and connects again at the next post): a lost batch of credits shrank the sender's
 * window for good, and a lost refusal left its send waiting. A credit signal carries the count of
 * all credits returned so far, modulo 2^10, not the batch's: one that failed after all reached the
 * sender counts once, however often it goes again. Touched only with the endpoint held.
 */
final class OwedToSender implements RmaOp.Owner {
    private static final System.Logger LOG = System.getLogger(OwedToSender.class.getName());

    private final RecvComm comm;
    private final Ops pool;
    private int creditsDue;
    /** The credits returned by the signals posted, modulo 2^10: what the next signal carries. */
    private int returned;
    /** Whether a credit signal failed: the count goes again, even with no credit due. */
    private boolean resend;
    /**
     * Refusals owed, by message number, oldest first: sent before any credit goes back, so that the
     * sender, out of credits meanwhile, has at most {@link Limits#CREDITS} messages here to refuse.
     */
    private final OwedWords refusalsOwed = new OwedWords(Limits.CREDITS);
    private final OwedWords.Sender refusal = this::sendRefusal;

    OwedToSender(RecvComm comm, Ops pool) {
        this.comm = comm;
        this.pool = pool;
    }

    /** Message {@code seq} was refused: the sender is told, now or once an operation is free. */
    void refused(int seq) throws RdmaException {
        if (refusalsOwed.count() > 0 || !sendRefusal(seq)) {
            if (!refusalsOwed.add(seq)) {
                throw new RdmaException(ErrorCategory.REMOTE, "message " + seq + " refused beyond the sender's "
                        + Limits.CREDITS + " credits");
            }
            refusalsOwed.sendAll(refusal);
        }
    }

    /** An eager message or request to send was used up (or dropped): its credit is due back. */
    void used() {
        creditsDue++;
        returnCredits(EagerInbox.CREDIT_BATCH);
    }

    /**
     * Returns the credits due once at least {@code atLeast} are and an operation is free, after the
     * refusals owed; what finds none stays due. One signal carries at most {@link Limits#CREDITS},
     * all an honest sender can have used: more are due only from a sender that ignores its
     * credits, and go in further signals.
     */
    void returnCredits(int atLeast) {
        if (refusalsOwed.count() > 0 && !refusalsOwed.sendAll(refusal)) {
            return;
        }
        if (creditsDue < Math.max(1, atLeast) && !resend) {
            return;
        }
        RmaOp op = pool.acquire();
        if (op == null) {
            return;
        }
        int credits = Math.min(creditsDue, Limits.CREDITS);
        creditsDue -= credits;
        returned = (returned + credits) & Limits.SEQ_MASK;
        resend = false; // before the post, whose failure at once sets it again
        comm.connection().sendImmediate(op, "credits to the sender", Immediate.signal(
                Signal.CREDITS_TO_SENDER, comm.connection().peerCommId(), returned), this);
    }

    /** Tells the sender that message {@code seq} was refused; false when no operation is free. */
    private boolean sendRefusal(int seq) {
        RmaOp op = pool.acquire();
        if (op == null) {
            return false;
        }
        comm.connection().sendImmediate(op, "refusal to the sender", Immediate.signal(
                Signal.TRUNCATED_TO_SENDER, comm.connection().peerCommId(), seq), this);
        return true;
    }

    @Override
    public void opDone(RmaOp op) {
    }

    /** A signal the provider failed is owed again. */
    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        int word = (int) op.data;
        if (Immediate.signal(word) == Signal.CREDITS_TO_SENDER) {
            resend = true;
        } else if (!refusalsOwed.add(Immediate.seq(word))) {
            LOG.log(System.Logger.Level.WARNING, "receive communicator {0}: the refusal of message {1} failed ({2})"
                    + " with {3} other refusals owed; its send is not told", comm.id(), Immediate.seq(word),
                    cause.getMessage(), refusalsOwed.count());
        }
    }
}
