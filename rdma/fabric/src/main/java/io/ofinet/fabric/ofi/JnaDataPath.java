package io.ofinet.fabric.ofi;

import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.ofinet.fabric.FiErrno;

/**
 * The data path through JNA: one {@link JnaInvoker} per cached function pointer, calling JNA's
 * native dispatcher with arguments set in place, so that a call allocates nothing (where JNA's
 * dispatcher is not reachable, {@link JnaInvoker} falls back to boxing). Memory is read and
 * written through {@link Pointer}'s JNI accessors. JDK 22+ uses the FFM implementation instead.
 */
final class JnaDataPath implements DataPath {
    /** A pointer at address 0: {@code BASE.getLong(address)} reads at {@code address}. */
    private static final Pointer BASE = new Pointer(0);

    /** libc's memmove, for copies between native regions. */
    private static final JnaInvoker MEMMOVE =
            new JnaInvoker(Pointer.nativeValue(NativeLibrary.getInstance("c").getFunction("memmove")));

    @Override
    public String name() {
        return "jna";
    }

    /** The function at {@code offset} of {@code table}; null where the provider leaves the table or it out. */
    static JnaInvoker optional(long table, int offset) {
        long address = table == 0 ? 0 : BASE.getLong(table + offset);
        return address == 0 ? null : new JnaInvoker(address);
    }

    static JnaInvoker function(long table, int offset, String what) {
        JnaInvoker invoker = optional(table, offset);
        if (invoker == null) {
            throw new UnsupportedOperationException(what + " is not provided by the provider");
        }
        return invoker;
    }

    @Override
    public void copy(long from, long to, long length) {
        if (length > 0) {
            MEMMOVE.call(to, from, length);
        }
    }

    @Override
    public EndpointCalls endpoint(long ep, boolean waitsOnPeers) {
        return new JnaEndpointCalls(ep);
    }

    @Override
    public CqCalls cq(long cq, boolean waitsOnPeers) {
        long ops = BASE.getLong(cq + NativeOffsets.CQ_OPS);
        JnaInvoker read = function(ops, NativeOffsets.OPS_CQ_READ, "fi_cq_read");
        JnaInvoker readerr = function(ops, NativeOffsets.OPS_CQ_READERR, "fi_cq_readerr");
        JnaInvoker readfrom = function(ops, NativeOffsets.OPS_CQ_READFROM, "fi_cq_readfrom");
        return new CqCalls() {
            @Override
            public long read(long buf, long count) {
                return read.call(cq, buf, count);
            }

            @Override
            public long readfrom(long buf, long count, long src) {
                return readfrom.call(cq, buf, count, src);
            }

            @Override
            public long readerr(long buf, long flags) {
                return readerr.call(cq, buf, flags);
            }
        };
    }

    @Override
    public byte getByte(long address) {
        return BASE.getByte(address);
    }

    @Override
    public void putByte(long address, byte value) {
        BASE.setByte(address, value);
    }

    @Override
    public void read(long address, byte[] target, int offset, int length) {
        BASE.read(address, target, offset, length);
    }

    @Override
    public void write(long address, byte[] source, int offset, int length) {
        BASE.write(address, source, offset, length);
    }

    @Override
    public long getLong(long address) {
        return BASE.getLong(address);
    }

    @Override
    public int getInt(long address) {
        return BASE.getInt(address);
    }

    @Override
    public void putLong(long address, long value) {
        BASE.setLong(address, value);
    }

    @Override
    public void putInt(long address, int value) {
        BASE.setInt(address, value);
    }

    private static final class JnaEndpointCalls implements EndpointCalls {
        private final long ep;
        private final JnaInvoker send;
        private final JnaInvoker recv;
        private final JnaInvoker senddata;
        private final JnaInvoker sendmsg;
        private final JnaInvoker recvmsg;
        private final JnaInvoker write;
        private final JnaInvoker writedata;
        private final JnaInvoker read;
        private final JnaInvoker writemsg;
        private final JnaInvoker readmsg;
        private final JnaInvoker trecv;
        private final JnaInvoker tsenddata;
        private final JnaInvoker cancel;

        JnaEndpointCalls(long ep) {
            this.ep = ep;
            long msg = BASE.getLong(ep + NativeOffsets.EP_MSG);
            long rma = BASE.getLong(ep + NativeOffsets.EP_RMA);
            long tagged = BASE.getLong(ep + NativeOffsets.EP_TAGGED);
            long ops = BASE.getLong(ep + NativeOffsets.EP_OPS);
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
            return send.call(ep, buf, len, desc, dest, context);
        }

        @Override
        public long recv(long buf, long len, long desc, long src, long context) {
            return recv.call(ep, buf, len, desc, src, context);
        }

        @Override
        public long senddata(long buf, long len, long desc, long data, long dest, long context) {
            return senddata.call(ep, buf, len, desc, data, dest, context);
        }

        @Override
        public long write(long buf, long len, long desc, long dest, long addr, long key, long context) {
            return write.call(ep, buf, len, desc, dest, addr, key, context);
        }

        @Override
        public long writedata(long buf, long len, long desc, long data, long dest, long addr,
                long key, long context) {
            return writedata.call(ep, buf, len, desc, data, dest, addr, key, context);
        }

        @Override
        public long read(long buf, long len, long desc, long src, long addr, long key, long context) {
            return read.call(ep, buf, len, desc, src, addr, key, context);
        }

        @Override
        public long sendmsg(long msg, long flags) {
            return sendmsg.call(ep, msg, flags);
        }

        @Override
        public long recvmsg(long msg, long flags) {
            return recvmsg.call(ep, msg, flags);
        }

        @Override
        public long writemsg(long msg, long flags) {
            return writemsg.call(ep, msg, flags);
        }

        @Override
        public long readmsg(long msg, long flags) {
            return readmsg.call(ep, msg, flags);
        }

        @Override
        public long trecv(long buf, long len, long desc, long src, long tag, long ignore, long context) {
            return trecv == null ? -FiErrno.FI_ENOSYS : trecv.call(ep, buf, len, desc, src, tag, ignore, context);
        }

        @Override
        public long tsenddata(long buf, long len, long desc, long data, long dest, long tag, long context) {
            return tsenddata == null ? -FiErrno.FI_ENOSYS : tsenddata.call(ep, buf, len, desc, data, dest, tag,
                    context);
        }

        @Override
        public long cancel(long context) {
            return cancel == null ? -FiErrno.FI_ENOSYS : cancel.call(ep, context);
        }
    }
}
