package io.ofinet.rdma.recv;

import io.ofinet.fabric.HostMemory;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.eager.EagerBuffer;
import io.ofinet.rdma.eager.EagerBuffers;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.Ops;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.seq.MessageWindow;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.Signal;

/**
 * A receive communicator's eager messages, requests to send and heads (docs/PROTOCOL.md, "Eager messages"): those
 * whose receive is posted are matched and copied out at once; those that came first stay in their
 * buffers (held) until their receive is posted, at most {@link Limits#CREDITS} of them. A
 * message matched by tag waits for the earlier ones of its receive matched by tag, since both sides
 * give them buffers in sequence order. Each one used up gives the sender back a credit, returned in
 * batches of half the credits. Touched only with the endpoint held.
 */
public final class EagerInbox {
    private static final int MASK = (1 << Limits.SEQ_BITS) - 1;
    /** Credits returned in one signal. */
    public static final int CREDIT_BATCH = Limits.CREDITS / 2;

    private final RecvComm comm;
    private final HostMemory memory;
    private final EagerBuffers eager;
    private final Ops pool;
    private final EagerMessageHeader header = new EagerMessageHeader();
    private final int[] heldSeq = new int[Limits.CREDITS];
    private final long[] heldLength = new long[Limits.CREDITS];
    private final EagerBuffer[] held = new EagerBuffer[Limits.CREDITS];
    private int heldCount;
    private int creditsDue;

    public EagerInbox(RecvComm comm, CommParts parts) {
        this.comm = comm;
        this.memory = parts.memory();
        this.eager = parts.eager();
        this.pool = parts.ops();
    }

    /** The largest payload an eager message may carry here. */
    private long maxPayload() {
        return eager.payloadBytes();
    }

    /**
     * Whether the message of {@code len} bytes in {@code buffer} carries this communicator's token
     * in its header: one without it is not its peer's, and is dropped without failing it.
     */
    public boolean carriesToken(EagerBuffer buffer, long len) {
        return len >= EagerMessageHeader.BYTES
                && EagerMessageHeader.tokenAt(memory, buffer.address) == comm.token();
    }

    /**
     * Decodes and checks the header of message {@code seq} ({@code len} bytes in {@code buffer}),
     * whose token {@link #carriesToken} found right; {@link #deliverChecked} then uses it.
     */
    public void check(EagerBuffer buffer, long len, int seq) throws RdmaException {
        header.decode(memory, buffer.address, len, seq, maxPayload());
    }

    /**
     * Eager message or request to send {@code seq} arrived in {@code buffer} ({@code len} bytes):
     * delivered to its receive in {@code window}, held until that is posted, or dropped when its
     * receive has failed.
     *
     * @return whether the buffer is held
     */
    boolean arrived(EagerBuffer buffer, long len, int seq, ReceiveWindow window) throws RdmaException {
        check(buffer, len, seq);
        MessageWindow.Status status = window.status(seq);
        if (status == MessageWindow.Status.IN_PROGRESS) {
            return deliverChecked(window.retrieve(seq), seq, buffer, len);
        }
        if (status == MessageWindow.Status.COMPLETED) {
            used(); // its receive failed, and it with it
            return false;
        }
        window.checkAhead(seq);
        hold(buffer, len, seq);
        return true;
    }

    /** Keeps message {@code seq}, whose receive is not posted yet. */
    public void hold(EagerBuffer buffer, long len, int seq) throws RdmaException {
        if (heldCount == held.length) {
            throw new RdmaException(ErrorCategory.REMOTE, "eager message " + seq + " arrived beyond the sender's "
                    + Limits.CREDITS + " credits");
        }
        heldSeq[heldCount] = seq;
        heldLength[heldCount] = len;
        held[heldCount++] = buffer;
    }

    /** Messages held now. */
    public int held() {
        return heldCount;
    }

    /**
     * Message {@code seq} in {@code buffer} for the posted {@code request}: matched and copied, or
     * held while an earlier one matched by tag has not come.
     *
     * @return whether the buffer is held
     */
    private boolean deliver(RecvRequest request, int seq, EagerBuffer buffer, long len) throws RdmaException {
        header.decode(memory, buffer.address, len, seq, maxPayload());
        return deliverChecked(request, seq, buffer, len);
    }

    /** {@link #deliver} for the message whose header {@link #check} has just decoded. */
    public boolean deliverChecked(RecvRequest request, int seq, EagerBuffer buffer, long len) throws RdmaException {
        int k = (seq - request.seq) & MASK;
        int i;
        if (header.byTag()) {
            if (k != request.byTagNext) {
                hold(buffer, len, seq);
                return true;
            }
            request.byTagNext++;
            i = untaken(request, request.byTagTaken, header.tag());
            if (i < 0) {
                refuse(request, seq, Immediate.ERROR_NO_TAG, "irecv: the sender's tag " + header.tag()
                        + " matched no buffer of the posted receive");
                return false;
            }
            request.byTagTaken |= 1 << i;
        } else {
            i = header.buffer();
            if (i >= request.buffers) {
                throw new RdmaException(ErrorCategory.REMOTE, "eager message " + seq + " names buffer " + i + " of a "
                        + request.buffers + "-buffer receive");
            }
        }
        boolean data = header.kind() == EagerMessageHeader.KIND_EAGER;
        if ((((data ? request.taken : request.eagerFilled) >>> i) & 1) != 0) {
            throw new RdmaException(ErrorCategory.REMOTE, "eager message " + seq + " for buffer " + i
                    + " of receive " + request.seq + ", which something else took");
        }
        long size = header.size();
        if (size > request.capacity[i]) {
            refuse(request, seq, Immediate.ERROR_TRUNCATED, "irecv: the sender's message of " + size
                    + " bytes did not fit receive buffer " + i + " of " + request.capacity[i] + " bytes (tag "
                    + request.tag[i] + "); nothing was written");
            return false;
        }
        if (data) {
            if (size > 0) {
                memory.copy(buffer.payload(), request.address[i], size);
            }
            request.eagerFilled(i, size);
        } else if (header.kind() == EagerMessageHeader.KIND_HEAD && !request.tagged(i)) {
            // At most eagerMaxSize bytes, fewer than the send's size, which fits the buffer (decode, above).
            memory.copy(buffer.payload(), request.address[i], header.payload());
            request.head(i, header.payload());
        } else {
            // A request to send; or a head for a buffer that takes a tagged message, which brings the head's bytes again.
            request.taken |= 1 << i;
        }
        used();
        comm.progressed(request);
        if (header.byTag() && request.byTagNext < request.buffers && request.failure() == null) {
            deliverHeld(request, (request.seq + request.byTagNext) & MASK);
        }
        return false;
    }

    /**
     * Delivers what is held for the receive just posted, in sequence order. A held message that
     * breaks a rule fails the communicator (the peer broke the protocol on it), not the call that
     * posted the receive: the receive fails with it.
     */
    public void posted(RecvRequest request) {
        try {
            for (int k = 0; k < request.buffers && heldCount > 0 && request.failure() == null; k++) {
                deliverHeld(request, (request.seq + k) & MASK);
            }
        } catch (RdmaException e) {
            comm.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "receive communicator " + comm.id() + ": "
                    + e.getMessage(), e));
        }
    }

    /** Delivers the held message {@code seq}, if there is one, to {@code request}. */
    private void deliverHeld(RecvRequest request, int seq) throws RdmaException {
        for (int h = 0; h < heldCount; h++) {
            if (heldSeq[h] == seq) {
                EagerBuffer buffer = held[h];
                long len = heldLength[h];
                remove(h);
                boolean kept = false;
                try {
                    kept = deliver(request, seq, buffer, len);
                } finally {
                    if (!kept) {
                        eager.unhold(buffer);
                    }
                }
                return;
            }
        }
    }

    private void remove(int h) {
        heldCount--;
        heldSeq[h] = heldSeq[heldCount];
        heldLength[h] = heldLength[heldCount];
        held[h] = held[heldCount];
        held[heldCount] = null;
    }

    /** The first buffer of {@code request} not in {@code taken} whose tag is {@code tag}, or -1. */
    private static int untaken(RecvRequest request, int taken, int tag) {
        for (int i = 0; i < request.buffers; i++) {
            if ((taken & (1 << i)) == 0 && request.tag[i] == tag) {
                return i;
            }
        }
        return -1;
    }

    /** The receive fails for what message {@code seq} broke; the sender is told. */
    private void refuse(RecvRequest request, int seq, int reason, String why) {
        used();
        request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, why));
        RmaOp op = pool.acquire();
        if (op != null) {
            comm.connection().sendImmediate(op, "refusal to the sender", Immediate.signal(
                    reason == Immediate.ERROR_TRUNCATED ? Signal.TRUNCATED_TO_SENDER : Signal.NO_TAG_TO_SENDER,
                    comm.connection().peerCommId(), seq), RmaOp.NO_OWNER);
        }
    }

    /** An eager message or request to send was used up (or dropped): its credit is due back. */
    public void used() {
        creditsDue++;
        returnCredits(CREDIT_BATCH);
    }

    /** Returns the credits due once at least {@code atLeast} are (and an operation is free). */
    public void returnCredits(int atLeast) {
        if (creditsDue < Math.max(1, atLeast)) {
            return;
        }
        RmaOp op = pool.acquire();
        if (op == null) {
            return;
        }
        comm.connection().sendImmediate(op, "credits to the sender", Immediate.signal(
                Signal.CREDITS_TO_SENDER, comm.connection().peerCommId(), creditsDue), RmaOp.NO_OWNER);
        creditsDue = 0;
    }

    /** The communicator closed: the held buffers are posted again. */
    public void dropAll() {
        for (int h = 0; h < heldCount; h++) {
            eager.unhold(held[h]);
            held[h] = null;
        }
        heldCount = 0;
    }
}
