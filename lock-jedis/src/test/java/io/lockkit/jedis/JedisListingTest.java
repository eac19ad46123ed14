package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockInfo;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.ListPage;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.testkit.redis.CommandMonitor;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Inspection and listing on Redis beyond the kit: the commands they send (one script call per
 * inspect; per page one SCAN and one batch of reads; never KEYS), and key prefixes that hold
 * glob characters. One Redis of its own, whose command statistics it reads.
 */
class JedisListingTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private RedisServer redis;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private static final String CLIENT_NAME = "listing-test";

    private JedisLockProvider provider(String keyPrefix) {
        JedisLockProvider p = JedisLockProvider.builder()
                .uri(redis.uri())
                .keyPrefix(keyPrefix)
                .clientName(CLIENT_NAME)
                .build();
        closeables.add(p);
        return p;
    }

    private static String name() {
        return "list:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "/";
    }

    @Test
    @DisplayName(
            "inspect is one script call, and a listing page one SCAN plus one read per key found; KEYS is never sent")
    void inspectAndListingCommands() {
        JedisLockProvider p = provider("lockkit");
        String prefix = name();
        for (int i = 0; i < 10; i++) {
            p.tryAcquire(new LockRequest(prefix + i, "c:o", Duration.ofSeconds(30), Duration.ZERO));
        }
        p.inspect(prefix + 0); // the script is cached from here on
        Map<String, Long> inspectCalls;
        try (CommandMonitor monitor = CommandMonitor.start(redis, CLIENT_NAME)) {
            p.inspect(prefix + 1);
            inspectCalls = monitor.stop();
        }
        assertThat(inspectCalls).as("commands of one inspect").isEqualTo(Map.of("evalsha", 1L));

        p.list(prefix, null, 4); // opens the pooled connection listings use (lock calls keep their own)
        int pages = 0;
        int found = 0;
        Map<String, Long> calls;
        try (CommandMonitor monitor = CommandMonitor.start(redis, CLIENT_NAME)) {
            String cursor = null;
            do {
                ListPage page = p.list(prefix, cursor, 4);
                pages++;
                found += page.locks().size();
                cursor = page.next();
            } while (cursor != null);
            calls = monitor.stop();
        }
        assertThat(found).isEqualTo(10);
        assertThat(calls.get("scan")).as("SCANs for %d pages", pages).isEqualTo(pages);
        assertThat(calls.getOrDefault("eval", 0L) + calls.getOrDefault("evalsha", 0L))
                .as("reads of 10 held locks")
                .isEqualTo(10);
        assertThat(calls.keySet()).as("commands of a listing").isSubsetOf("scan", "evalsha", "eval");
        assertThat(calls).as("commands of a listing").doesNotContainKey("keys");
    }

    @Test
    @DisplayName(
            "on the wire, inspect is one round trip and a listing page two (the SCAN, then one pipelined batch of reads)")
    void roundTripsOnTheWire() throws Exception {
        try (TurnCounter proxy = new TurnCounter(redis.host(), redis.port())) {
            JedisLockProvider p = JedisLockProvider.create("redis://127.0.0.1:" + proxy.port());
            closeables.add(p);
            String prefix = name();
            for (int i = 0; i < 12; i++) {
                p.tryAcquire(new LockRequest(prefix + i, "c:o", Duration.ofSeconds(30), Duration.ZERO));
            }
            p.inspect(prefix + 0); // connections made and the script cached before counting
            p.list(prefix, null, 1000);
            long before = proxy.turns();
            p.inspect(prefix + 1);
            assertThat(proxy.turns() - before).as("round trips of one inspect").isEqualTo(1);
            // One page that sees the whole (small) keyspace: its SCAN, then its reads in one batch.
            before = proxy.turns();
            ListPage page = p.list(prefix, null, 1000);
            assertThat(page.locks()).hasSize(12);
            assertThat(page.next()).isNull();
            assertThat(proxy.turns() - before)
                    .as("round trips of one page of 12 locks")
                    .isEqualTo(2);
        }
    }

    /**
     * A loopback TCP proxy that counts round trips: a turn is the client writing after it has
     * read (or before anything), so a pipeline of many commands is one.
     */
    private static final class TurnCounter implements AutoCloseable {
        private final java.net.ServerSocket server =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        private final java.util.concurrent.atomic.AtomicLong turns = new java.util.concurrent.atomic.AtomicLong();
        private final List<java.net.Socket> sockets = new CopyOnWriteArrayList<>();

        TurnCounter(String host, int port) throws java.io.IOException {
            Thread acceptor = new Thread(
                    () -> {
                        while (!server.isClosed()) {
                            try {
                                java.net.Socket client = server.accept();
                                java.net.Socket upstream = new java.net.Socket(host, port);
                                sockets.add(client);
                                sockets.add(upstream);
                                java.util.concurrent.atomic.AtomicBoolean replied =
                                        new java.util.concurrent.atomic.AtomicBoolean(true);
                                pump(client, upstream, () -> {
                                    if (replied.getAndSet(false)) {
                                        turns.incrementAndGet();
                                    }
                                });
                                pump(upstream, client, () -> replied.set(true));
                            } catch (java.io.IOException e) {
                                return; // closed
                            }
                        }
                    },
                    "turn-counter");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private static void pump(java.net.Socket from, java.net.Socket to, Runnable onData) {
            Thread t = new Thread(
                    () -> {
                        byte[] buffer = new byte[65536];
                        try {
                            java.io.InputStream in = from.getInputStream();
                            java.io.OutputStream out = to.getOutputStream();
                            for (int n; (n = in.read(buffer)) > 0; ) {
                                onData.run(); // counted before forwarding, so the other side cannot answer first
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                        } catch (java.io.IOException e) {
                            // a side closed
                        }
                    },
                    "turn-counter-pump");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        long turns() {
            return turns.get();
        }

        @Override
        public void close() throws java.io.IOException {
            server.close();
            for (java.net.Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    @DisplayName(
            "a key prefix holding glob characters lists only its own locks, not those of a prefix its pattern would match")
    void globCharactersInTheKeyPrefixAreLiteral() throws Exception {
        String name = name() + "x";
        JedisLockProvider globby = provider("a?p*[1]");
        JedisLockProvider plain = provider("axpyy1");
        try (DistributedLockFactory a = DistributedLockFactory.create(globby);
                DistributedLockFactory b = DistributedLockFactory.create(plain)) {
            a.acquire(name, LockOptions.noWait());
            b.acquire(name, LockOptions.noWait());
            String ownerA = a.operations().inspect(name).orElseThrow().owner();
            String ownerB = b.operations().inspect(name).orElseThrow().owner();
            assertThat(ownerA).isNotEqualTo(ownerB);
            try (Stream<LockInfo> listed = a.operations().locks(name)) {
                assertThat(listed.map(LockInfo::owner).collect(Collectors.toList()))
                        .containsExactly(ownerA);
            }
            try (Stream<LockInfo> listed = b.operations().locks(name)) {
                assertThat(listed.map(LockInfo::owner).collect(Collectors.toList()))
                        .containsExactly(ownerB);
            }
        }
    }

    @Test
    @DisplayName("the listing of 1,200 locks (over two factory pages) fetches them lazily and lists each")
    void largeListingThroughTheFactory() throws Exception {
        JedisLockProvider p = provider("lockkit");
        String prefix = name();
        for (int i = 0; i < 1200; i++) {
            p.tryAcquire(new LockRequest(prefix + i, "c:o", Duration.ofSeconds(30), Duration.ZERO));
        }
        try (DistributedLockFactory f = DistributedLockFactory.create(provider("lockkit"));
                Stream<LockInfo> listed = f.operations().locks(prefix)) {
            Set<String> names = new HashSet<>();
            listed.forEach(i -> names.add(i.name()));
            assertThat(names).hasSize(1200);
        }
    }

    @Test
    @DisplayName("a cursor that is not one of this provider's is refused with IllegalArgumentException")
    void foreignCursorIsRefused() {
        JedisLockProvider p = provider("lockkit");
        assertThatThrownBy(() -> p.list("", "nonsense", 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cursor");
        assertThatThrownBy(() -> p.list("", null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pageSize");
    }
}
