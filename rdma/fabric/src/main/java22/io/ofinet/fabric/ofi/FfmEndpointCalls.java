package io.ofinet.fabric.ofi;

import static io.ofinet.fabric.ofi.FfmDataPath.ALL;
import static io.ofinet.fabric.ofi.FfmDataPath.CALL2;
import static io.ofinet.fabric.ofi.FfmDataPath.call;
import static io.ofinet.fabric.ofi.FfmDataPath.CALL6;
import static io.ofinet.fabric.ofi.FfmDataPath.CALL7;
import static io.ofinet.fabric.ofi.FfmDataPath.CALL8;
import static io.ofinet.fabric.ofi.FfmDataPath.CALL9;
import static io.ofinet.fabric.ofi.FfmDataPath.function;
import static io.ofinet.fabric.ofi.FfmDataPath.optional;
import static io.ofinet.fabric.ofi.FfmDataPath.rethrow;

import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.ofi.DataPath.EndpointCalls;
import io.ofinet.fabric.ofi.FfmDataPath.Waiting;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One endpoint's calls through FFM ({@link FfmDataPath}): the functions read from its ops tables
 * once, called address-first through the data path's handles of each arity, as critical calls or,
 * where the provider may wait on a peer, as ordinary ones.
 */
final class FfmEndpointCalls implements EndpointCalls {
    private final long ep;
    private final MemorySegment send;
    private final MemorySegment recv;
    private final MemorySegment senddata;
    private final MemorySegment sendmsg;
    private final MemorySegment recvmsg;
    private final MemorySegment write;
    private final MemorySegment writedata;
    private final MemorySegment read;
    private final MemorySegment writemsg;
    private final MemorySegment readmsg;
    private final MemorySegment trecv;
    private final MemorySegment tsenddata;
    private final MemorySegment cancel;
    /** Whether its calls may wait on a peer: linked as ordinary calls then. */
    private final boolean waits;

    FfmEndpointCalls(long ep, boolean waitsOnPeers) {
        this.ep = ep;
        this.waits = waitsOnPeers;
        long msg = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_MSG);
        long rma = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_RMA);
        long tagged = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_TAGGED);
        long ops = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_OPS);
        trecv = optional(tagged, NativeOffsets.OPS_TAGGED_RECV);
        tsenddata = optional(tagged, NativeOffsets.OPS_TAGGED_SENDDATA);
        cancel = optional(ops, NativeOffsets.OPS_EP_CANCEL);
        send = function(msg, NativeOffsets.OPS_MSG_SEND, "fi_send");
        recv = function(msg, NativeOffsets.OPS_MSG_RECV, "fi_recv");
        senddata = function(msg, NativeOffsets.OPS_MSG_SENDDATA, "fi_senddata");
        sendmsg = function(msg, NativeOffsets.OPS_MSG_SENDMSG, "fi_sendmsg");
        recvmsg = function(msg, NativeOffsets.OPS_MSG_RECVMSG, "fi_recvmsg");
        write = function(rma, NativeOffsets.OPS_RMA_WRITE, "fi_write");
        writedata = function(rma, NativeOffsets.OPS_RMA_WRITEDATA, "fi_writedata");
        read = function(rma, NativeOffsets.OPS_RMA_READ, "fi_read");
        writemsg = function(rma, NativeOffsets.OPS_RMA_WRITEMSG, "fi_writemsg");
        readmsg = function(rma, NativeOffsets.OPS_RMA_READMSG, "fi_readmsg");
    }

    @Override
    public long send(long buf, long len, long desc, long dest, long context) {
        return call6(send, buf, len, desc, dest, context);
    }

    @Override
    public long recv(long buf, long len, long desc, long src, long context) {
        return call6(recv, buf, len, desc, src, context);
    }

    /** A call of the endpoint's function {@code fn} with five arguments after the endpoint. */
    private long call6(MemorySegment fn, long a, long b, long c, long d, long e) {
        try {
            return waits ? (long) Waiting.WAIT6.invokeExact(fn, ep, a, b, c, d, e)
                    : (long) CALL6.invokeExact(fn, ep, a, b, c, d, e);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long senddata(long buf, long len, long desc, long data, long dest, long context) {
        try {
            return waits ? (long) Waiting.WAIT7.invokeExact(senddata, ep, buf, len, desc, data, dest, context)
                    : (long) CALL7.invokeExact(senddata, ep, buf, len, desc, data, dest, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long write(long buf, long len, long desc, long dest, long addr, long key, long context) {
        return call8(write, buf, len, desc, dest, addr, key, context);
    }

    @Override
    public long writedata(long buf, long len, long desc, long data, long dest, long addr, long key,
            long context) {
        try {
            if (waits) {
                return (long) Waiting.WAIT9.invokeExact(writedata, ep, buf, len, desc, data, dest, addr, key,
                        context);
            }
            return (long) CALL9.invokeExact(writedata, ep, buf, len, desc, data, dest, addr, key, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long read(long buf, long len, long desc, long src, long addr, long key, long context) {
        return call8(read, buf, len, desc, src, addr, key, context);
    }

    @Override
    public long sendmsg(long msg, long flags) {
        return call(waits, sendmsg, ep, msg, flags);
    }

    @Override
    public long recvmsg(long msg, long flags) {
        return call(waits, recvmsg, ep, msg, flags);
    }

    @Override
    public long writemsg(long msg, long flags) {
        return call(waits, writemsg, ep, msg, flags);
    }

    @Override
    public long readmsg(long msg, long flags) {
        return call(waits, readmsg, ep, msg, flags);
    }

    @Override
    public long trecv(long buf, long len, long desc, long src, long tag, long ignore, long context) {
        return trecv == null ? -FiErrno.FI_ENOSYS : call8(trecv, buf, len, desc, src, tag, ignore, context);
    }

    @Override
    public long tsenddata(long buf, long len, long desc, long data, long dest, long tag, long context) {
        return tsenddata == null ? -FiErrno.FI_ENOSYS : call8(tsenddata, buf, len, desc, data, dest, tag, context);
    }

    /** A call of the endpoint's function {@code fn} with seven arguments after the endpoint. */
    private long call8(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g) {
        try {
            return waits ? (long) Waiting.WAIT8.invokeExact(fn, ep, a, b, c, d, e, f, g)
                    : (long) CALL8.invokeExact(fn, ep, a, b, c, d, e, f, g);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long cancel(long context) {
        if (cancel == null) {
            return -FiErrno.FI_ENOSYS;
        }
        try {
            return waits ? (long) Waiting.WAIT2.invokeExact(cancel, ep, context)
                    : (long) CALL2.invokeExact(cancel, ep, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
