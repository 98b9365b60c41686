package io.ofinet.rdma.recv;

import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.comm.Timeline;
import io.ofinet.rdma.seq.TagCounts;
import io.ofinet.rdma.wire.Limits;

/**
 * A receive communicator's buffers by tag and ordinal (docs/PROTOCOL.md, "Matching by tag"): each
 * buffer posted takes its tag's next ordinal, and a message matched by tag goes to the posted
 * buffer with its tag and ordinal. Touched only with the endpoint held.
 */
final class PostedBuffers {
    private final RequestPool<RecvRequest> requests;
    /** Per tag: the buffers posted, the next buffer's ordinal. */
    private final TagCounts ordinals = new TagCounts();

    PostedBuffers(RequestPool<RecvRequest> requests) {
        this.requests = requests;
    }

    /** Gives each buffer of {@code request}, whose tags are set, its tag's next ordinal. */
    void number(RecvRequest request) {
        for (int i = 0; i < request.buffers; i++) {
            request.ordinal[i] = ordinals.next(request.tag[i]);
            if (Timeline.ON) {
                Timeline.record(Timeline.RECV_POSTED, request.tag[i], request.ordinal[i]);
            }
        }
    }

    /**
     * The posted receive, failed or not, with a buffer of {@code tag} and {@code ordinal} (modulo
     * 2^16), or null.
     */
    RecvRequest with(int tag, int ordinal) {
        for (int r = 0; r < requests.created(); r++) {
            RecvRequest request = requests.at(r);
            if (request.inUse() && buffer(request, tag, ordinal) >= 0) {
                return request;
            }
        }
        return null;
    }

    /** The buffer of {@code request} with {@code tag} and {@code ordinal} (modulo 2^16), or -1. */
    static int buffer(RecvRequest request, int tag, int ordinal) {
        for (int i = 0; i < request.buffers; i++) {
            if (request.tag[i] == tag && (request.ordinal[i] & Limits.ORDINAL_MASK) == ordinal) {
                return i;
            }
        }
        return -1;
    }

    /** Whether a buffer with {@code tag} and {@code ordinal} (modulo 2^16) was posted already. */
    boolean passed(int tag, int ordinal) {
        return TagCounts.passed(ordinals.get(tag), ordinal);
    }
}
