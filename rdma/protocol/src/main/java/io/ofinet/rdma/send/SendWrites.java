package io.ofinet.rdma.send;

import io.ofinet.fabric.HostMemory;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.eager.EagerBuffer;
import io.ofinet.rdma.eager.EagerBuffers;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.Ops;
import io.ofinet.rdma.op.OwedWords;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.sched.RailScheduler;
import io.ofinet.rdma.sched.Schedule;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.Signal;
import io.ofinet.rdma.wire.TaggedData;

/**
 * What a connected send communicator puts on the wire: a send's striped writes into the buffer an
 * announcement named (or one tagged message, where the receiver asked for it), the errors
 * that tell the receiver of a refused or failed send, and the confirmation of its close. Every
 * method takes the operations it needs from the endpoint's pool, all or none, and returns false
 * when they are short (the caller retries at the next progress step). Touched only with the
 * endpoint held.
 */
final class SendWrites {
    private final HostMemory memory;
    private final RailSet rails;
    private final int dataRails;
    private final Ops pool;
    private final EagerBuffers eager;
    private final Connection connection;
    private final RailScheduler scheduler;
    private final Schedule schedule = new Schedule(Limits.MAX_DATA_RAILS);
    private final RmaOp[] ops = new RmaOp[Limits.MAX_DATA_RAILS];
    /**
     * What went to the receiver that it counts, modulo 2^10: eager messages, requests to send and
     * heads, written segments (or their notices), tagged messages, errors. The close signal names
     * the count, so that the receiver knows when all of it has arrived.
     */
    private int counted;
    /**
     * Errors owed to the receiver (immediate words), counted already: the close signal, which names
     * the count, goes only once none is owed. One a send at most, and at most a window of sends.
     */
    private final OwedWords errorsOwed = new OwedWords(Limits.WINDOW);
    private final OwedWords.Sender error = this::sendError;
    /**
     * Owns the errors to the receiver: one the provider fails (rxm fails what a connection reset
     * between two live peers carried) is owed again, so that the receive it is for hears of its
     * failure.
     */
    private final RmaOp.Owner errorOwner = new RmaOp.Owner() {
        @Override
        public void opDone(RmaOp op) {
        }

        @Override
        public void opFailed(RmaOp op, RdmaException cause) {
            errorsOwed.add((int) op.data);
        }
    };

    /** Hears of eager messages and requests to send, whose sends are done when they are posted. */
    public interface EagerOwner extends RmaOp.Owner {
        /** An eager send of {@code bytes} is done. */
        void sent(long bytes);
    }

    private final EagerOwner eagerOwner;

    public SendWrites(CommParts parts, Connection receiver, RailScheduler scheduler, EagerOwner eagerOwner) {
        this.eagerOwner = eagerOwner;
        this.memory = parts.memory();
        this.rails = parts.rails();
        this.dataRails = parts.dataRails();
        this.pool = parts.ops();
        this.eager = parts.eager();
        this.connection = receiver;
        this.scheduler = scheduler;
    }

    /** Fails a send and tells the receiver why ({@code reason}, an error for {@code seq}). */
    public boolean refuse(SendRequest request, int seq, int buffer, int reason, String why) {
        RmaOp op = pool.acquire();
        if (op == null) {
            return false;
        }
        request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, why));
        count(1);
        connection.sendImmediate(op, "error to the receiver", Immediate.encode(Immediate.TYPE_ERROR, reason, buffer,
                connection.peerCommId(), seq), errorOwner);
        return true;
    }

    /**
     * Tells the receiver that a send's writes did not complete (failed, or stalled); owed while no
     * operation is free ({@link #sendOwedErrors}).
     */
    public void sendFailed(SendRequest request) {
        int word = Immediate.encode(Immediate.TYPE_ERROR, Immediate.ERROR_SEND_FAILED, request.bufferIndex,
                connection.peerCommId(), request.seq);
        count(1);
        if (errorsOwed.count() > 0 || !sendError(word)) {
            errorsOwed.add(word);
        }
    }

    /**
     * Sends the errors owed to the receiver, oldest first, as far as operations are free (from the
     * communicator's look at its stalls, and before its close signal); returns whether none is left.
     */
    public boolean sendOwedErrors() {
        return errorsOwed.sendAll(error);
    }

    /** Posts error {@code word} to the receiver; false when no operation is free. */
    private boolean sendError(int word) {
        RmaOp op = pool.acquire();
        if (op == null) {
            return false;
        }
        connection.sendImmediate(op, "error to the receiver", word, errorOwner);
        return true;
    }

    /**
     * Sends message {@code seq} (the communicator's count of messages matched by tag) as an eager
     * message of {@code kind} ({@link EagerMessageHeader}) — its header, with the send's tag and
     * ordinal, and the payload copied into an eager buffer, one message to the receiver's data rail
     * {@code seq mod rails}: the whole send ({@link EagerMessageHeader#KIND_EAGER}), nothing ({@link
     * EagerMessageHeader#KIND_RTS}), or its first {@code headBytes} ({@link EagerMessageHeader#KIND_HEAD}, the
     * rest written later past them). An eager send is done at once (its payload is copied); the message's
     * failure to go out fails the communicator, through {@code eagerOwner}.
     */
    public boolean eager(SendRequest request, int seq, int kind, long headBytes) {
        EagerBuffer buffer = eager.acquire();
        if (buffer == null) {
            return false;
        }
        boolean whole = kind == EagerMessageHeader.KIND_EAGER;
        long payload = whole ? request.size : kind == EagerMessageHeader.KIND_HEAD ? headBytes : 0;
        EagerMessageHeader.encode(memory, buffer.address, kind, request.ordinal, request.tag, request.size,
                connection.peerToken());
        if (payload > 0) {
            memory.copy(request.address, buffer.payload(), payload);
        }
        int rail = seq % dataRails;
        int word = Immediate.encode(Immediate.TYPE_DATA, 1, 0, connection.peerCommId(), seq);
        // Copied out whole, the send is done now, and its message's fate is the communicator's (a
        // failure to deliver it fails the communicator).
        request.sentEagerly(seq, whole, kind == EagerMessageHeader.KIND_HEAD ? headBytes : 0);
        if (request.headBytes > 0) {
            pool.counts().headSent();
        }
        long data = rails.immediate(word, connection.peerToken() & 0xffffffffL);
        count(1);
        if (whole) {
            pool.counts().sent(request.size);
            eagerOwner.sent(request.size);
        }
        buffer.send.start(rail, EagerMessageHeader.BYTES + payload, data, connection.dataPeer(rail), connection.dataQueue(rail),
                eagerOwner);
        return true;
    }

    /**
     * Writes a send in stripes into buffer {@code i} of the receive {@code seq} announced by
     * {@code announcement}, as the scheduler splits it over the data rails; a zero-byte send is a
     * zero-byte message with the same immediate data to the receiver's first control rail. Of a
     * send whose head went out, the rest is written past the head, and the head counts as one more
     * of the buffer's segments. The send moves only once its operations are taken: false (it waits,
     * as it was) when there are none.
     */
    public boolean write(SendRequest request, Announcement announcement, int i, int seq) {
        if (announcement.tagged(i)) {
            return tagged(request, announcement.index(i), seq);
        }
        if (request.size == 0) {
            RmaOp op = pool.acquire();
            if (op == null) {
                return false;
            }
            request.moving(seq, announcement.index(i), System.nanoTime());
            request.awaitOperations(1);
            count(1);
            connection.sendImmediate(op, "zero-byte send to the receiver", Immediate.encode(Immediate.TYPE_DATA, 1,
                    announcement.index(i), connection.peerCommId(), seq), request);
            return true;
        }
        long skip = request.headBytes;
        scheduler.schedule(request.size - skip, schedule);
        int stripes = schedule.stripes();
        if (!pool.acquire(ops, stripes)) {
            return false;
        }
        request.moving(seq, announcement.index(i), System.nanoTime());
        int segments = stripes + (skip > 0 ? 1 : 0);
        request.awaitOperations(stripes);
        count(stripes);
        for (int s = 0; s < stripes; s++) {
            int rail = schedule.rail(s);
            long offset = skip + schedule.offset(s);
            long length = schedule.length(s);
            RmaOp op = ops[s].write(rails.dataEndpoint(rail), rail, RmaOp.WRITE_ON_DATA_RAIL[rail], request,
                    rails.noticeFor(length));
            op.buf = request.address + offset;
            op.len = length;
            op.desc = request.mr.descriptor(RailKind.DATA, rail);
            op.data = rails.immediate(Immediate.encode(Immediate.TYPE_DATA, segments, announcement.index(i),
                    connection.peerCommId(), seq), length);
            op.peer = connection.dataPeer(rail);
            op.remote = announcement.address(i) + offset;
            op.key = announcement.key(i, rail);
            op.submit(connection.dataQueue(rail));
            ops[s] = null;
        }
        return true;
    }

    /**
     * Sends a send whole as one tagged message into buffer {@code index} of receive {@code seq},
     * whose receiver posted a tagged receive for it ({@link Announcement#TAGGED}), on the data
     * rail and with the tag {@link TaggedData} gives. The message lands at the buffer's start, so a
     * send whose head went out sends the head's bytes again; the receiver ignores heads for such a
     * buffer. The CQ data is that of a single written segment, for what reads it.
     */
    private boolean tagged(SendRequest request, int index, int seq) {
        RmaOp op = pool.acquire();
        if (op == null) {
            return false;
        }
        request.moving(seq, index, System.nanoTime());
        int rail = TaggedData.rail(seq, index, dataRails);
        request.awaitOperations(1);
        count(1);
        op.set(RmaOp.Kind.TSENDDATA, rails.dataEndpoint(rail), rail, RmaOp.TAGGED_SEND_ON_RAIL[rail],
                request);
        boolean empty = request.size == 0 || request.mr == null;
        op.buf = empty ? 0 : request.address;
        op.len = request.size;
        op.desc = empty ? 0 : request.mr.descriptor(RailKind.DATA, rail);
        op.data = rails.immediate(Immediate.encode(Immediate.TYPE_DATA, 1, index, connection.peerCommId(),
                seq), request.size);
        op.peer = connection.dataPeer(rail);
        op.tag = TaggedData.tag(connection.peerToken(), connection.peerCommId(), seq, index);
        op.submit(connection.dataQueue(rail));
        return true;
    }

    private void count(int arrivals) {
        counted = (counted + arrivals) & Limits.SEQ_MASK;
    }

    /**
     * Tells the receiver that this side writes no more, and how much it sent that the receiver
     * counts: on every data rail, behind the writes, where the provider keeps that order ({@link
     * RailSet#confirmsCloseOnDataRails()}), else on control rail 0; after the errors owed. False
     * while an operation it needs is not free.
     */
    public boolean closed() {
        if (!sendOwedErrors()) {
            return false;
        }
        boolean onData = rails.confirmsCloseOnDataRails();
        int signals = onData ? dataRails : 1;
        if (!pool.acquire(ops, signals)) {
            return false;
        }
        int word = Immediate.signal(Signal.SENDER_CLOSED, connection.peerCommId(), counted);
        for (int r = 0; r < signals; r++) {
            if (onData) {
                connection.sendImmediateOnData(ops[r], r, "close signal", word, RmaOp.NO_OWNER);
            } else {
                connection.sendImmediate(ops[r], "close signal", word, RmaOp.NO_OWNER);
            }
            ops[r] = null;
        }
        return true;
    }
}
