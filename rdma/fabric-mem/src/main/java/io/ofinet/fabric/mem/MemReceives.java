package io.ofinet.fabric.mem;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * The receive side of an in-memory endpoint: its posted receives and the messages that came
 * before a receive for them, untagged and tagged apart, as libfabric keeps them. An untagged
 * message takes the first untagged receive; a tagged one the first tagged receive whose tag
 * matches it outside the receive's ignored bits. Messages are matched in the order they arrived.
 * Guarded by the network's monitor, as the endpoint is.
 */
final class MemReceives {
    /** A posted receive; {@code tag} and {@code ignore} count only when {@code tagged}. */
    record Recv(long buf, long len, long context, boolean tagged, long tag, long ignore) {
        boolean matches(Unexpected m) {
            return tagged == m.tagged() && (!tagged || (m.tag() | ignore) == (tag | ignore));
        }
    }

    /** A message that found no receive: its bytes, as they were when it arrived. */
    record Unexpected(byte[] payload, long data, boolean hasData, long sender, boolean tagged, long tag) {
    }

    /** A message and the receive it takes. */
    record Match(Recv recv, Unexpected message) {
    }

    private final Deque<Recv> recvs = new ArrayDeque<>();
    private final Deque<Recv> tagged = new ArrayDeque<>();
    private final Deque<Unexpected> unexpected = new ArrayDeque<>();

    /** How many receives of this kind are posted. */
    int posted(boolean isTagged) {
        return isTagged ? tagged.size() : recvs.size();
    }

    void post(Recv r) {
        (r.tagged() ? tagged : recvs).add(r);
    }

    /**
     * The receive an arriving message takes, removed; or null, when none matches or an earlier
     * message still waits for the same kind of receive (it is matched first, when receives are
     * posted).
     */
    Recv take(boolean isTagged, long tag) {
        for (Unexpected u : unexpected) {
            if (u.tagged() == isTagged) {
                return null;
            }
        }
        Deque<Recv> queue = isTagged ? tagged : recvs;
        for (Iterator<Recv> it = queue.iterator(); it.hasNext();) {
            Recv r = it.next();
            if (!isTagged || (tag | r.ignore()) == (r.tag() | r.ignore())) {
                it.remove();
                return r;
            }
        }
        return null;
    }

    void hold(Unexpected message) {
        unexpected.add(message);
    }

    /** The next waiting message that a posted receive now takes, both removed; or null. */
    Match next() {
        for (Iterator<Unexpected> it = unexpected.iterator(); it.hasNext();) {
            Unexpected u = it.next();
            Deque<Recv> queue = u.tagged() ? tagged : recvs;
            for (Iterator<Recv> r = queue.iterator(); r.hasNext();) {
                Recv recv = r.next();
                if (recv.matches(u)) {
                    r.remove();
                    it.remove();
                    return new Match(recv, u);
                }
            }
        }
        return null;
    }

    /** The posted receive with {@code context}, removed; or null. */
    Recv cancel(long context) {
        for (Deque<Recv> queue : java.util.List.of(recvs, tagged)) {
            for (Iterator<Recv> it = queue.iterator(); it.hasNext();) {
                Recv r = it.next();
                if (r.context() == context) {
                    it.remove();
                    return r;
                }
            }
        }
        return null;
    }

    void clear() {
        recvs.clear();
        tagged.clear();
        unexpected.clear();
    }
}
