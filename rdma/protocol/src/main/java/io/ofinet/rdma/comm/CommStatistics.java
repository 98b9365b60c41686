package io.ofinet.rdma.comm;

import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one communicator has moved since it was made, and what was dropped in its name. A snapshot:
 * {@link SendComm#statistics()} and {@link RecvComm#statistics()} make a new one; a count may be a
 * progress step old when read from another thread than the one driving the endpoint.
 *
 * @param messages sends or receives reported done
 * @param bytes their bytes
 * @param droppedForged arrivals naming it that lacked its token, came from another address than
 *     its peer's, or were data segments its sender could not have sent (one longer than its
 *     buffer, one for a buffer that takes a tagged message): not from its peer
 * @param droppedMalformed data segments naming it, from its peer or from a sender that cannot be
 *     told, that broke another rule (a receive not posted, a buffer index out of range, segment
 *     counts that disagree)
 * @param refusedAfterDone eager messages sent that completed here and that the receiver then
 *     refused (larger than their receive buffer, or a tag no buffer had): each failed its receive
 *     there and was logged here; the communicator went on
 */
public record CommStatistics(long messages, long bytes, long droppedForged, long droppedMalformed,
        long refusedAfterDone) {

    /** The figures by name, in declaration order, for printing. */
    public Map<String, Long> asMap() {
        Map<String, Long> map = new LinkedHashMap<>();
        map.put("messages", messages);
        map.put("bytes", bytes);
        map.put("droppedForged", droppedForged);
        map.put("droppedMalformed", droppedMalformed);
        map.put("refusedAfterDone", refusedAfterDone);
        return map;
    }
}
