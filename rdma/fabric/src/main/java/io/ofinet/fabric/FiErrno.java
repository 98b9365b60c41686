package io.ofinet.fabric;

/**
 * libfabric's error numbers ({@code rdma/fi_errno.h}, 1.17). Calls return them negated.
 * Values below 256 are Linux errno values; 256 and above are libfabric's own.
 */
public final class FiErrno {
    private FiErrno() {
    }

    public static final int FI_SUCCESS = 0;
    public static final int FI_EPERM = 1;
    public static final int FI_ENOENT = 2;
    public static final int FI_EINTR = 4;
    public static final int FI_EIO = 5;
    public static final int FI_E2BIG = 7;
    public static final int FI_EBADF = 9;
    /** Try again: a queue is full. Never an exception in ofinet. */
    public static final int FI_EAGAIN = 11;
    public static final int FI_ENOMEM = 12;
    public static final int FI_EACCES = 13;
    public static final int FI_EFAULT = 14;
    public static final int FI_EBUSY = 16;
    public static final int FI_ENODEV = 19;
    public static final int FI_EINVAL = 22;
    public static final int FI_EMFILE = 24;
    public static final int FI_ENOSPC = 28;
    public static final int FI_ENOSYS = 38;
    public static final int FI_ENOMSG = 42;
    public static final int FI_ENODATA = 61;
    public static final int FI_EOVERFLOW = 75;
    public static final int FI_EMSGSIZE = 90;
    public static final int FI_ENOPROTOOPT = 92;
    public static final int FI_EOPNOTSUPP = 95;
    public static final int FI_EADDRINUSE = 98;
    public static final int FI_EADDRNOTAVAIL = 99;
    public static final int FI_ENETDOWN = 100;
    public static final int FI_ENETUNREACH = 101;
    public static final int FI_ECONNABORTED = 103;
    public static final int FI_ECONNRESET = 104;
    public static final int FI_ENOBUFS = 105;
    public static final int FI_EISCONN = 106;
    public static final int FI_ENOTCONN = 107;
    public static final int FI_ESHUTDOWN = 108;
    public static final int FI_ETIMEDOUT = 110;
    public static final int FI_ECONNREFUSED = 111;
    public static final int FI_EHOSTDOWN = 112;
    public static final int FI_EHOSTUNREACH = 113;
    public static final int FI_EALREADY = 114;
    public static final int FI_EINPROGRESS = 115;
    public static final int FI_ECANCELED = 125;
    public static final int FI_EKEYREJECTED = 129;
    public static final int FI_EOTHER = 256;
    public static final int FI_ETOOSMALL = 257;
    public static final int FI_EOPBADSTATE = 258;
    /** An error completion is waiting: read it with {@code fi_cq_readerr}. */
    public static final int FI_EAVAIL = 259;
    public static final int FI_EBADFLAGS = 260;
    public static final int FI_ENOEQ = 261;
    public static final int FI_EDOMAIN = 262;
    public static final int FI_ENOCQ = 263;
    public static final int FI_ECRC = 264;
    public static final int FI_ETRUNC = 265;
    /** Required key not available: a requested MR key is already used in the domain. */
    public static final int FI_ENOKEY = 266;
    public static final int FI_ENOAV = 267;
    public static final int FI_EOVERRUN = 268;
    public static final int FI_ENORX = 269;

    private static final String[] NAMES = new String[FI_ENORX + 1];

    static {
        // The constants above are the single source of the names.
        for (java.lang.reflect.Field field : FiErrno.class.getFields()) {
            if (field.getType() == int.class && field.getName().startsWith("FI_E")) {
                try {
                    NAMES[field.getInt(null)] = field.getName();
                } catch (IllegalAccessException e) {
                    throw new ExceptionInInitializerError(e);
                }
            }
        }
    }

    /** The symbolic name of an error number (positive or negated), e.g. {@code FI_EAGAIN}. */
    public static String name(int code) {
        int positive = Math.abs(code);
        if (positive < NAMES.length && NAMES[positive] != null) {
            return NAMES[positive];
        }
        return "error " + positive;
    }
}
