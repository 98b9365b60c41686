package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer.Completion;
import io.ofinet.fabric.testing.Progress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour ofinet relies on, written once and run against every provider implementation:
 * the in-memory provider and real libfabric providers. Two endpoints in one domain of one
 * process ({@link FabricFixture}); the cross-process form lives in the integration tests. Its
 * tagged part is {@link TaggedMessageContract}, which it extends.
 */
@Timeout(60)
public abstract class FabricContract extends TaggedMessageContract {
    @Test
    void offerDescribesTheProvider() {
        FabricInfo info = info();
        assertEquals(hints().provider().orElseThrow(), info.provider());
        hints().domain().ifPresent(domain -> assertEquals(domain, info.domain(), "the required domain"));
        assertTrue(info.mrKeySizeBytes() >= 1, info.summary());
        assertTrue(info.cqDataSizeBytes() >= 4, "4-byte immediate data: " + info.summary());
        assertTrue((info.caps() & InfoHints.PROTOCOL_CAPS) == InfoHints.PROTOCOL_CAPS, info.summary());
        assertTrue(info.txSize() > 0 && info.rxSize() > 0, info.summary());
    }

    @Test
    void sendLandsInAPostedReceive() throws Exception {
        HostBuffer src = buffer(4096).pattern(7);
        HostBuffer dst = buffer(4096);
        MemoryRegion srcMr = register(a, src, ALL_ACCESS);
        MemoryRegion dstMr = register(b, dst, ALL_ACCESS);
        post(() -> b.endpoint.recv(dst.address, dst.size, dstMr.descriptor(), Fi.ADDR_UNSPEC, 20));
        post(() -> a.endpoint.send(src.address, 1000, srcMr.descriptor(), aToB, 10));
        Completion sent = await(a, 10);
        Completion received = await(b, 20);
        assertFalse(sent.failed(), sent.toString());
        assertFalse(received.failed(), received.toString());
        assertEquals(1000, received.len());
        assertTrue((received.flags() & Fi.RECV) != 0, "flags " + Long.toHexString(received.flags()));
        assertArrayEquals(src.bytes(0, 1000), dst.bytes(0, 1000));
        assertEquals(0, dst.get(1000), "nothing past the message");
    }

    @Test
    void senddataDeliversImmediateData() throws Exception {
        HostBuffer src = buffer(64).pattern(3);
        HostBuffer dst = buffer(64);
        MemoryRegion srcMr = register(a, src, ALL_ACCESS);
        MemoryRegion dstMr = register(b, dst, ALL_ACCESS);
        post(() -> b.endpoint.recv(dst.address, dst.size, dstMr.descriptor(), Fi.ADDR_UNSPEC, 21));
        post(() -> a.endpoint.senddata(src.address, 64, srcMr.descriptor(), 0xCAFEF00DL, aToB, 11));
        Completion received = await(b, 21);
        await(a, 11);
        assertTrue((received.flags() & Fi.REMOTE_CQ_DATA) != 0);
        assertEquals(0xCAFEF00DL, received.data());
        assertArrayEquals(src.bytes(0, 64), dst.bytes(0, 64));
    }

    @Test
    void writedataArrivesAsRemoteCqDataWithoutConsumingAReceive() throws Exception {
        HostBuffer src = buffer(8192).pattern(11);
        HostBuffer target = buffer(16384);
        HostBuffer recvBuf = buffer(64);
        MemoryRegion srcMr = register(a, src, ALL_ACCESS);
        MemoryRegion targetMr = register(b, target, ALL_ACCESS);
        MemoryRegion recvMr = register(b, recvBuf, ALL_ACCESS);
        post(() -> b.endpoint.recv(recvBuf.address, recvBuf.size, recvMr.descriptor(), Fi.ADDR_UNSPEC, 22));
        post(() -> a.endpoint.writedata(src.address, 8192, srcMr.descriptor(), 0x12345678L, aToB,
                remote(targetMr, 4096), targetMr.key(), 12));
        await(a, 12);
        // The target learns of the write from a completion with FI_REMOTE_CQ_DATA (its context is
        // not one of the target's posts; len may be 0 on tcp;ofi_rxm).
        Completion[] remote = new Completion[1];
        Progress.until(WAIT, () -> {
            for (Completion c : b.takeAll()) {
                if ((c.flags() & Fi.REMOTE_CQ_DATA) != 0) {
                    remote[0] = c;
                }
            }
            return remote[0] != null;
        }, a, b);
        assertEquals(0x12345678L, remote[0].data());
        assertFalse(remote[0].failed());
        assertArrayEquals(src.bytes(0, 8192), target.bytes(4096, 8192));
        assertEquals(0, target.get(4095), "nothing before the window");
        // The posted receive is still there: a send lands in it.
        HostBuffer msg = buffer(8).pattern(99);
        MemoryRegion msgMr = register(a, msg, ALL_ACCESS);
        post(() -> a.endpoint.send(msg.address, 8, msgMr.descriptor(), aToB, 13));
        Completion received = await(b, 22);
        assertEquals(8, received.len());
        assertArrayEquals(msg.bytes(0, 8), recvBuf.bytes(0, 8));
    }

    @Test
    void readFetchesRemoteMemory() throws Exception {
        HostBuffer remoteBuf = buffer(4096).pattern(5);
        HostBuffer local = buffer(4096);
        MemoryRegion remoteMr = register(b, remoteBuf, ALL_ACCESS);
        MemoryRegion localMr = register(a, local, ALL_ACCESS);
        post(() -> a.endpoint.read(local.address, 512, localMr.descriptor(), aToB, remote(remoteMr, 1024),
                remoteMr.key(), 14));
        Completion done = await(a, 14);
        assertFalse(done.failed(), done.toString());
        assertArrayEquals(remoteBuf.bytes(1024, 512), local.bytes(0, 512));
    }

    @Test
    void msgFormsCarryFlagsAndData() throws Exception {
        HostBuffer src = buffer(256).pattern(1);
        HostBuffer dst = buffer(256);
        HostBuffer target = buffer(256);
        MemoryRegion srcMr = register(a, src, ALL_ACCESS);
        MemoryRegion dstMr = register(b, dst, ALL_ACCESS);
        MemoryRegion targetMr = register(b, target, ALL_ACCESS);
        post(() -> b.endpoint.recvmsg(dst.address, 256, dstMr.descriptor(), Fi.ADDR_UNSPEC, 30, Fi.COMPLETION));
        post(() -> a.endpoint.sendmsg(src.address, 100, srcMr.descriptor(), aToB, 77, 31,
                Fi.COMPLETION | Fi.REMOTE_CQ_DATA));
        Completion received = await(b, 30);
        assertEquals(77, received.data());
        assertEquals(100, received.len());
        await(a, 31);
        post(() -> a.endpoint.writemsg(src.address, 128, srcMr.descriptor(), aToB, remote(targetMr, 64),
                targetMr.key(), 55, 32, Fi.COMPLETION | Fi.REMOTE_CQ_DATA));
        await(a, 32);
        Progress.until(WAIT, () -> b.takeAll().stream().anyMatch(c -> c.data() == 55
                && (c.flags() & Fi.REMOTE_CQ_DATA) != 0), a, b);
        assertArrayEquals(src.bytes(0, 128), target.bytes(64, 128));
        HostBuffer back = buffer(128);
        MemoryRegion backMr = register(a, back, ALL_ACCESS);
        post(() -> a.endpoint.readmsg(back.address, 128, backMr.descriptor(), aToB, remote(targetMr, 64),
                targetMr.key(), 33, Fi.COMPLETION));
        await(a, 33);
        assertArrayEquals(src.bytes(0, 128), back.bytes(0, 128));
    }

    /**
     * A write the target refuses. Writes ask for delivery completion: on tcp;ofi_rxm a plain write
     * completes when it leaves, so the target's refusal never reaches the initiator's queue.
     */
    private void assertRefusedWrite(long len, long offset, long keyDelta, long context) throws Exception {
        HostBuffer src = buffer(512).pattern(9);
        HostBuffer target = buffer(512).fill((byte) 0x5A);
        MemoryRegion srcMr = register(a, src, ALL_ACCESS);
        MemoryRegion targetMr = register(b, target, ALL_ACCESS);
        post(() -> a.endpoint.writemsg(src.address, len, srcMr.descriptor(), aToB, remote(targetMr, offset),
                targetMr.key() + keyDelta, 0, context, Fi.COMPLETION | Fi.DELIVERY_COMPLETE));
        Completion done = await(a, context);
        assertTrue(done.failed(), "the write must fail: " + done);
        Progress.spin(Duration.ofMillis(100), a, b);
        for (long i = 0; i < target.size; i++) {
            assertEquals(0x5A, target.get(i), "byte " + i + " of the target was written");
        }
    }

    @Test
    void writeWithABadKeyFailsAndWritesNothing() throws Exception {
        assertRefusedWrite(64, 0, 1000, 40);
    }

    @Test
    void writeOutOfRangeFailsAndWritesNothing() throws Exception {
        // 256 bytes at offset 384 of a 512-byte region: half of it lies outside.
        assertRefusedWrite(256, 384, 0, 41);
    }

    @Test
    void readWithABadKeyFails() throws Exception {
        HostBuffer remoteBuf = buffer(256).pattern(5);
        HostBuffer local = buffer(256).fill((byte) 0x33);
        MemoryRegion remoteMr = register(b, remoteBuf, ALL_ACCESS);
        MemoryRegion localMr = register(a, local, ALL_ACCESS);
        post(() -> a.endpoint.read(local.address, 64, localMr.descriptor(), aToB, remote(remoteMr, 0),
                remoteMr.key() + 7, 42));
        Completion done = await(a, 42);
        assertTrue(done.failed(), "the read must fail: " + done);
        assertEquals(0x33, local.get(0));
    }

    @Test
    void postingUntilTheQueueIsFullReturnsAgainNeverThrows() throws Exception {
        HostBuffer src = buffer(64).pattern(2);
        MemoryRegion srcMr = register(a, src, ALL_ACCESS);
        HostBuffer target = buffer(64);
        MemoryRegion targetMr = register(b, target, ALL_ACCESS);
        // Bring the connection up first, so that -FI_EAGAIN below means a full queue.
        post(() -> a.endpoint.write(src.address, 64, srcMr.descriptor(), aToB, remote(targetMr, 0),
                targetMr.key(), 4));
        await(a, 4);
        int posted = 0;
        boolean sawAgain = false;
        // Without reading the CQ, some queue fills; bounded well above any tx_size here.
        for (int i = 0; i < 200_000 && !sawAgain; i++) {
            int rc = a.endpoint.write(src.address, 64, srcMr.descriptor(), aToB, remote(targetMr, 0),
                    targetMr.key(), 1000 + i);
            if (rc == Endpoint.AGAIN) {
                sawAgain = true;
            } else {
                posted(rc);
                posted++;
            }
        }
        assertTrue(sawAgain, "no -FI_EAGAIN after " + posted + " posts");
        int total = posted;
        int[] completed = {0};
        Progress.until(Duration.ofSeconds(40), () -> {
            for (Completion c : a.takeAll()) {
                assertFalse(c.failed(), c.toString());
                completed[0]++;
            }
            b.takeAll();
            return completed[0] == total;
        }, a, b);
        // And the endpoint takes posts again.
        post(() -> a.endpoint.write(src.address, 64, srcMr.descriptor(), aToB, remote(targetMr, 0),
                targetMr.key(), 5));
        await(a, 5);
    }

    @Test
    void duplicateRequestedKeyIsRefused() throws Exception {
        HostBuffer one = buffer(64);
        HostBuffer two = buffer(64);
        MemoryRegion first = domain.register(one.address, one.size, ALL_ACCESS, 4242, Fi.HMEM_SYSTEM);
        try {
            if (info().providerKeys()) {
                return;
            }
            FabricException e = assertThrows(FabricException.class,
                    () -> domain.register(two.address, two.size, ALL_ACCESS, 4242, Fi.HMEM_SYSTEM));
            assertEquals(FiErrno.FI_ENOKEY, e.errno(), e.getMessage());
        } finally {
            first.close();
        }
    }

    @Test
    void closingOutOfOrderIsRefusedAndClosingTwiceIsHarmless() throws Exception {
        FabricException busy = assertThrows(FabricException.class, () -> domain.close());
        assertEquals(FiErrno.FI_EBUSY, busy.errno(), busy.getMessage());
        FabricException cqBusy = assertThrows(FabricException.class, () -> a.cq.close());
        assertEquals(FiErrno.FI_EBUSY, cqBusy.errno());
        HostBuffer buf = buffer(64);
        MemoryRegion mr = domain.register(buf.address, buf.size, ALL_ACCESS, 77, Fi.HMEM_SYSTEM);
        mr.close();
        mr.close();
    }

    @Test
    void aClosedQueueVectorOrRegistrationIsAClearErrorNotACrash() throws Exception {
        CompletionQueue cq = domain.openCompletionQueue(16);
        AddressVector av = domain.openAddressVector(4);
        cq.close();
        av.close();
        assertThrows(IllegalStateException.class, () -> cq.read(new CompletionBatch(4), 4));
        assertThrows(IllegalStateException.class, () -> cq.readError(new CompletionError()));
        assertThrows(IllegalStateException.class, () -> av.insert(a.endpoint.name()));
        assertThrows(IllegalStateException.class, () -> av.lookup(0));
        CompletionQueue open = domain.openCompletionQueue(16);
        try {
            assertThrows(IllegalStateException.class, () -> domain.openEndpoint(open, av), "bound to a closed vector");
        } finally {
            open.close();
        }
        HostBuffer buf = buffer(64);
        MemoryRegion mr = domain.register(buf.address, buf.size, ALL_ACCESS, 78, Fi.HMEM_SYSTEM);
        mr.close();
        FabricException e = assertThrows(FabricException.class, mr::enable);
        assertEquals(FiErrno.FI_EOPBADSTATE, e.errno(), e.getMessage());
    }

    @Test
    void readingNoCompletionsReadsNone() throws Exception {
        assertEquals(0, a.cq.read(new CompletionBatch(4), 0));
    }

    /** A peer's name cut short, or empty, is refused by what is wrong with it, before the provider reads it. */
    @Test
    void aNameThatIsNotOfTheProvidersFormatIsRefusedBeforeItIsRead() throws Exception {
        AddressVector av = domain.openAddressVector(4);
        try {
            byte[] name = b.endpoint.name();
            for (byte[] wrong : List.of(new byte[0], Arrays.copyOf(name, 3))) {
                FabricException e = assertThrows(FabricException.class, () -> av.requireWellFormed(wrong));
                assertEquals(FiErrno.FI_EINVAL, e.errno(), e.getMessage());
                FabricException inserting = assertThrows(FabricException.class, () -> av.insert(wrong));
                assertEquals(e.getMessage(), inserting.getMessage());
                assertTrue(e.getMessage().contains(wrong.length == 0 ? "an empty address" : "3 bytes"),
                        e.getMessage());
            }
            av.requireWellFormed(name);
            assertEquals(name.length, av.lookup(av.insert(name)).length, "its own kind of name goes in");
        } finally {
            av.close();
        }
    }

    @Test
    void postingOnAnUnenabledEndpointIsAClearError() throws Exception {
        CompletionQueue cq = domain.openCompletionQueue(16);
        AddressVector av = domain.openAddressVector(4);
        Endpoint ep = domain.openEndpoint(cq, av);
        try {
            FabricException e = assertThrows(FabricException.class,
                    () -> ep.send(0, 0, 0, 0, 0));
            assertEquals(FiErrno.FI_EOPBADSTATE, e.errno());
            assertTrue(e.getMessage().contains("not enabled"), e.getMessage());
        } finally {
            ep.close();
            av.close();
            cq.close();
        }
    }

    /** Providers that do not require FI_MR_ENDPOINT: what binding does, as each really answers. */
    @Test
    void bindingARegistrationEitherWorksOrFailsNamingTheProvider() throws Exception {
        HostBuffer buf = buffer(64);
        MemoryRegion mr = domain.register(buf.address, buf.size, ALL_ACCESS, 999, Fi.HMEM_SYSTEM);
        try {
            try {
                mr.bind(a.endpoint, 0);
                mr.enable();
                assertNotNull(mr);
            } catch (FabricException e) {
                assertTrue(e.getMessage().startsWith("fi_mr_bind (provider " + info().provider() + ")"),
                        e.getMessage());
                assertTrue(e.errno() == FiErrno.FI_ENOSYS || e.errno() == FiErrno.FI_EINVAL, e.getMessage());
            }
        } finally {
            mr.close();
        }
    }
}
