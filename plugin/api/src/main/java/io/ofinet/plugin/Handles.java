package io.ofinet.plugin;

/**
 * The opaque objects a {@link NetPlugin} hands out. A framework keeps them and passes them back;
 * one from another plugin, or one already closed, is invalid usage.
 */
public final class Handles {
    private Handles() {
    }

    /** Any communicator: memory is registered for the one that will use it. */
    public interface Comm {
    }

    /** A listening communicator and the handle peers connect with. */
    public interface ListenComm {
        /** At most {@link NetPlugin#HANDLE_MAX_BYTES} bytes, to send to the connecting peer out of band. */
        byte[] handle();
    }

    /** The sending side of a connection. */
    public interface SendComm extends Comm {
    }

    /** The receiving side of a connection. */
    public interface RecvComm extends Comm {
    }

    /** A registered buffer. */
    public interface MrHandle {
    }

    /**
     * An outstanding isend, irecv or iflush. Requests are pooled: once {@link NetPlugin#test} has
     * reported it done, or thrown its failure, a request is gone, and testing it again is invalid
     * usage (detected while it waits in the pool; a pool reuses the oldest returned first).
     */
    public interface Request {
    }
}
