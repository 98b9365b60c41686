package io.ofinet.rdma;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The matching rule, stated as plainly as it can be (docs/PROTOCOL.md, "Matching by tag"): the k-th
 * send with tag t, in the order the sender posted them, fills the k-th buffer with tag t, counting
 * receives in the order they were posted and buffers in index order.
 */
final class TagMatchingModel {
    private TagMatchingModel() {
    }

    /**
     * Which buffer each send fills: {@code receives.get(r)[i]} is the tag of buffer i of receive r,
     * {@code sendTags[s]} the tag of send s; the answer for send s is {@code {r, i}}, or null when no
     * buffer takes it.
     */
    static int[][] match(List<int[]> receives, int[] sendTags) {
        Map<Integer, ArrayDeque<int[]>> buffersByTag = new HashMap<>();
        for (int r = 0; r < receives.size(); r++) {
            int[] tags = receives.get(r);
            for (int i = 0; i < tags.length; i++) {
                buffersByTag.computeIfAbsent(tags[i], t -> new ArrayDeque<>()).add(new int[] {r, i});
            }
        }
        int[][] filled = new int[sendTags.length][];
        for (int s = 0; s < sendTags.length; s++) {
            ArrayDeque<int[]> buffers = buffersByTag.get(sendTags[s]);
            filled[s] = buffers == null ? null : buffers.poll();
        }
        return filled;
    }
}
