package io.ofinet.rdma;

import io.ofinet.rdma.op.OpCounts;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.rail.Peers;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an endpoint has done since it opened, summed over its communicators, and what it refused or
 * dropped, by reason. A snapshot: {@link RdmaEndpoint#statistics()} makes a new one.
 *
 * @param messagesSent sends reported done
 * @param bytesSent their bytes
 * @param messagesReceived receives reported done
 * @param bytesReceived their bytes
 * @param writesPosted RDMA writes posted (data segments, and announcements where written)
 * @param readsPosted RDMA reads posted (the flush's)
 * @param refusedPosts posts the provider refused for now (-FI_EAGAIN) and that were retried
 * @param condemnedPeers destinations condemned (gone, refusing past the bound, unreachable)
 * @param remoteWriteErrors failed writes into this endpoint that belong to no operation of its
 * @param droppedMalformed arrivals dropped because their immediate data broke the format, or a
 *     message came without immediate data where only zero-byte messages with it go
 * @param droppedUnknownComm arrivals dropped because they named no open communicator and none
 *     closed under that id (a peer's mistake)
 * @param droppedForged arrivals dropped as not from the peer of the communicator they named (a stray
 *     or hostile process, or a late signal meant for an earlier connection): signals, errors,
 *     announcements and eager messages without its token or from another address than its peer's,
 *     and data segments its sender could not have sent (docs/PROTOCOL.md, "What a peer can forge")
 * @param droppedHandshakes handshake messages that did not decode, or answered nothing asked
 * @param refusedConnections CONNECTs answered with a REJECT (no such listener, rail counts that
 *     differ, {@code maxPendingConnections})
 * @param connectsGivenUp connections being made that were closed because no connect call took them
 *     for {@code connectionTimeoutMs} past their deadline (an abort that ended the connect loop)
 * @param lateForClosedComm arrivals for the communicator last closed under the id they named (its
 *     token, where CQ data carries one): a peer's words that crossed the close, expected, ignored
 * @param addressEntries peer addresses in the address vectors now, the endpoint's own included
 *     (a gauge: each peer address once per rail, removed when no connection uses it)
 * @param mailboxesKept mailboxes of closed send communicators still registered now, for announcements
 *     their receivers may still write (a gauge)
 */
public record EndpointStatistics(long messagesSent, long bytesSent, long messagesReceived, long bytesReceived,
        long writesPosted, long readsPosted, long refusedPosts, long condemnedPeers, long remoteWriteErrors,
        long droppedMalformed, long droppedUnknownComm, long droppedForged, long droppedHandshakes,
        long refusedConnections, long connectsGivenUp, long lateForClosedComm, long addressEntries,
        long mailboxesKept) {

    /** Nothing yet. */
    public static final EndpointStatistics NONE = new EndpointStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0);

    /** A snapshot of an endpoint's parts' counts; the caller holds the endpoint. */
    static EndpointStatistics of(OpCounts c, ProgressEngine engine, ImmediateDispatcher immediates, Handshake handshake,
            Peers peers, SlowDuties duties) {
        return new EndpointStatistics(c.messagesSent(), c.bytesSent(), c.messagesReceived(), c.bytesReceived(),
                c.writesPosted() + c.writesNoticed(), c.readsPosted(), engine.refusedPosts(), engine.condemnedPeers(),
                engine.remoteWriteErrors(), immediates.malformed(), immediates.unknownComm(), immediates.forged(),
                handshake.dropped, handshake.refused(), handshake.connectsGivenUp(), immediates.lateForClosedComm(),
                peers.entries(),
                duties.mailboxesKept());
    }

    /** The sum of this and {@code o}, figure by figure (a device's endpoints). */
    public EndpointStatistics plus(EndpointStatistics o) {
        return new EndpointStatistics(messagesSent + o.messagesSent, bytesSent + o.bytesSent,
                messagesReceived + o.messagesReceived, bytesReceived + o.bytesReceived, writesPosted + o.writesPosted,
                readsPosted + o.readsPosted, refusedPosts + o.refusedPosts, condemnedPeers + o.condemnedPeers,
                remoteWriteErrors + o.remoteWriteErrors, droppedMalformed + o.droppedMalformed,
                droppedUnknownComm + o.droppedUnknownComm, droppedForged + o.droppedForged, droppedHandshakes + o.droppedHandshakes,
                refusedConnections + o.refusedConnections, connectsGivenUp + o.connectsGivenUp,
                lateForClosedComm + o.lateForClosedComm,
                addressEntries + o.addressEntries, mailboxesKept + o.mailboxesKept);
    }

    /** The figures by name, in declaration order, for printing. */
    public Map<String, Long> asMap() {
        Map<String, Long> map = new LinkedHashMap<>();
        map.put("messagesSent", messagesSent);
        map.put("bytesSent", bytesSent);
        map.put("messagesReceived", messagesReceived);
        map.put("bytesReceived", bytesReceived);
        map.put("writesPosted", writesPosted);
        map.put("readsPosted", readsPosted);
        map.put("refusedPosts", refusedPosts);
        map.put("condemnedPeers", condemnedPeers);
        map.put("remoteWriteErrors", remoteWriteErrors);
        map.put("droppedMalformed", droppedMalformed);
        map.put("droppedUnknownComm", droppedUnknownComm);
        map.put("droppedForged", droppedForged);
        map.put("droppedHandshakes", droppedHandshakes);
        map.put("refusedConnections", refusedConnections);
        map.put("connectsGivenUp", connectsGivenUp);
        map.put("lateForClosedComm", lateForClosedComm);
        map.put("addressEntries", addressEntries);
        map.put("mailboxesKept", mailboxesKept);
        return map;
    }
}
