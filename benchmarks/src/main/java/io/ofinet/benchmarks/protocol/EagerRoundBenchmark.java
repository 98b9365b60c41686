package io.ofinet.benchmarks.protocol;

import io.ofinet.config.ConfigLoader;
import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.Device;
import io.ofinet.rdma.ListenComm;
import io.ofinet.rdma.RdmaEndpoint;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One eager message through the whole protocol, in one thread: b's receive communicator posts an
 * 8-byte receive, a's send communicator sends 8 bytes, and both requests are tested until done —
 * the same provider round as {@code RoundBenchmark} (a {@code fi_senddata} and a posted receive,
 * both queues read), plus everything ofinet does around it: the eager header and copy, the
 * sequence number and tag match, the credits, the request pools. The difference between the two
 * is ofinet's own cost per message. Provider from {@code OFINET_BENCH_PROVIDER} ({@code shm} by
 * default).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class EagerRoundBenchmark {

    /** Two endpoints of one device, connected. */
    @State(Scope.Thread)
    public static class Pair {
        @Param({"8"})
        long bytes;

        Device device;
        RdmaEndpoint a;
        RdmaEndpoint b;
        SendComm send;
        RecvComm recv;
        long src;
        long dst;
        MrHandle srcMr;
        MrHandle dstMr;
        final long[] addresses = new long[1];
        final long[] sizes = new long[1];
        final int[] tags = new int[1];
        final MrHandle[] mrs = new MrHandle[1];
        final long[] received = new long[1];

        @Setup(Level.Trial)
        public void open() throws Exception {
            String provider = System.getenv().getOrDefault("OFINET_BENCH_PROVIDER", "shm");
            String domain = provider.equals("shm") ? "shm" : "lo";
            Path layout = Files.createTempFile("ofinet-bench", ".json");
            Files.writeString(layout, "{\"devices\": [{\"name\": \"bench\", \"dataRails\": [{\"provider\": \""
                    + provider + "\", \"domain\": \"" + domain + "\"}]}]}");
            System.setProperty(ConfigLoader.LAYOUT_PROPERTY, layout.toString());
            DeviceSpec spec = ConfigLoader.load().devices().get(0);
            Files.delete(layout);
            device = Device.open(new OfiProvider(), spec);
            a = device.openEndpoint();
            b = device.openEndpoint();
            ListenComm listen = b.listen();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (send == null || recv == null) {
                if (send == null) {
                    send = a.connect(listen.handle());
                }
                if (recv == null) {
                    recv = b.accept(listen);
                }
                a.progress();
                b.progress();
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no connection within 10 s");
                }
            }
            src = NativeMemory.allocate(4096);
            dst = NativeMemory.allocate(4096);
            srcMr = a.registerUserBuffer(src, 4096);
            dstMr = b.registerUserBuffer(dst, 4096);
            addresses[0] = dst;
            sizes[0] = bytes;
            tags[0] = 1;
            mrs[0] = dstMr;
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            send.close();
            recv.close();
            a.deregisterUserBuffer(srcMr);
            b.deregisterUserBuffer(dstMr);
            device.close();
            NativeMemory.free(src);
            NativeMemory.free(dst);
        }
    }

    @Benchmark
    public long message(Pair p) throws Exception {
        RecvRequest r = p.recv.irecv(1, p.addresses, p.sizes, p.tags, p.mrs);
        SendRequest s = p.send.isend(p.src, p.bytes, 1, p.srcMr);
        while (!s.test(null)) {
            Thread.onSpinWait();
        }
        while (!r.test(p.received)) {
            Thread.onSpinWait();
        }
        return p.received[0];
    }
}
