package io.ofinet.rdma.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TimelineTest {
    @Test
    void offUnlessAFileIsNamed() {
        assertFalse(Timeline.ON, "the suite runs without ofinet.timeline");
    }

    @Test
    void keepsTheFirstEventsWithTheTestRunningWhenTheyHappened() {
        Timeline timeline = new Timeline(3);
        timeline.add(Timeline.SEND_POSTED, 7, 0);
        timeline.test(7);
        timeline.add(Timeline.ANNOUNCED, 7, 0);
        timeline.test(-1);
        timeline.add(Timeline.DONE, 7, 0);
        timeline.add(Timeline.RECV_POSTED, 8, 1); // past its capacity: not kept

        StringWriter out = new StringWriter();
        timeline.write(out);
        String[] lines = out.toString().split("\n");
        assertEquals(4, lines.length, out.toString());
        assertEquals("nanos,event,tag,ordinal,testing", lines[0]);
        assertTrue(lines[1].endsWith(",send-posted,7,0,-1"), lines[1]);
        assertTrue(lines[2].endsWith(",announced,7,0,7"), lines[2]);
        assertTrue(lines[3].endsWith(",done,7,0,-1"), lines[3]);
        long first = Long.parseLong(lines[1].split(",")[0]);
        long last = Long.parseLong(lines[3].split(",")[0]);
        assertTrue(last >= first, "times in the order recorded");
    }
}
