package io.ofinet.plugin.ofi;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One side of the SIGTERM test: {@code TermPeer a|b DIR}. The two stream verified messages both
 * ways ({@link MessageStream}); side a also opens a second endpoint (a listen communicator on a
 * thread of its own), since providers may treat a process's second endpoint differently. Side a
 * publishes {@code a.streaming} once messages flow, and neither ends by itself: the test signals
 * them, or writes {@code a.exit}, on which side a exits at once without closing anything.
 */
public final class TermPeer {
    private static final long DEADLINE = System.nanoTime() + Duration.ofSeconds(120).toNanos();

    private TermPeer() {
    }

    public static void main(String[] args) throws Exception {
        String me = args[0];
        String other = me.equals("a") ? "b" : "a";
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        NetPlugin p = NetPlugins.load();
        p.init();
        Handles.ListenComm listen = p.listen(0);
        exchange.publish(me + ".handle", listen.handle());
        if (me.equals("a")) {
            Thread second = new Thread(() -> {
                try {
                    p.listen(0);
                } catch (Exception e) {
                    // The run claims two endpoints: without the second it must not pass.
                    e.printStackTrace(System.out);
                    System.exit(3);
                }
            });
            second.start();
            second.join();
        }
        byte[] handle = exchange.await(other + ".handle", Duration.ofSeconds(60));
        PeerPair pair = PeerPair.connect(p, listen, handle, () -> { });
        MessageStream stream = new MessageStream(p, pair.send(), pair.recv(), 65536, me, other);
        boolean announced = false;
        long nextLook = 0;
        while (System.nanoTime() < DEADLINE) {
            stream.step();
            long now = System.nanoTime();
            if (now > nextLook) {
                nextLook = now + 50_000_000L;
                if (exchange.has(me + ".exit")) {
                    System.out.println(me + ": exiting without closing");
                    System.exit(0);
                }
            }
            if (!announced && stream.received() > 100) {
                exchange.publish(me + ".streaming", "1");
                System.out.println(me + ": streaming");
                announced = true;
            }
        }
        System.out.println(me + ": never signalled");
        System.exit(2);
    }
}
