package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.internal.Keys;
import io.lockkit.jedis.topology.RedisCluster;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Cluster-specific behaviour of the Redis provider: key co-location and sharded wake-ups. */
@DisplayName("JedisLockProvider on a Redis Cluster: co-location and sharded pub/sub")
class ClusterProviderTest {

    private static RedisCluster cluster;
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private JedisLockProvider provider() {
        var client = cluster.newClient();
        JedisLockProvider p = JedisLockProvider.builder().client(client).build();
        closeables.add(client);
        closeables.add(p);
        return p;
    }

    @Test
    @DisplayName("locks land on every master, and each lock's keys sit on one master")
    void locksLandOnEveryMasterWithTheirKeysTogether() {
        JedisLockProvider p = provider();
        Map<Integer, Integer> perMaster = new HashMap<>();
        Keys keys = new Keys(JedisLockProvider.DEFAULT_KEY_PREFIX);
        for (int i = 0; i < 60; i++) {
            String name = "colocated:" + i + (i % 3 == 0 ? "{tag}" : "");
            assertThat(p.tryAcquire(new LockRequest(name, "o:" + i, Duration.ofSeconds(30), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            String base = keys.base(name);
            RedisServer master = cluster.masterFor(base);
            assertThat(master.command("EXISTS", base))
                    .as("lock hash of %s on its slot's master", name)
                    .isEqualTo(1L);
            assertThat(master.command("HGET", base, "~t"))
                    .as("token of %s in its hash", name)
                    .isNotNull();
            perMaster.merge(master.port(), 1, Integer::sum);
        }
        assertThat(perMaster).hasSize(cluster.masters().size());
    }

    @Test
    @DisplayName("one renew call renews holds on every master, batched per slot")
    void renewalsSpanMastersAndSlots() {
        JedisLockProvider p = provider();
        Keys keys = new Keys(JedisLockProvider.DEFAULT_KEY_PREFIX);
        List<io.lockkit.spi.LockProvider.Renewal> renewals = new java.util.ArrayList<>();
        for (int i = 0; i < 120; i++) {
            // Every third name shares the slot of "{tag}", so some script calls carry several holds.
            String name = "renewed:" + i + (i % 3 == 0 ? "{tag}" : "");
            assertThat(p.tryAcquire(new LockRequest(name, "o:1", Duration.ofSeconds(5), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            renewals.add(new io.lockkit.spi.LockProvider.Renewal(name, "o:1", Duration.ofSeconds(30)));
        }
        renewals.add(new io.lockkit.spi.LockProvider.Renewal("renewed:never-held{tag}", "o:1", Duration.ofSeconds(30)));
        assertThat(p.renew(renewals))
                .extracting(io.lockkit.spi.LockProvider.Renewal::name)
                .containsExactly("renewed:never-held{tag}");
        for (io.lockkit.spi.LockProvider.Renewal r : renewals.subList(0, 120)) {
            String base = keys.base(r.name());
            assertThat((Long) cluster.masterFor(base).command("PTTL", base))
                    .as(r.name())
                    .isGreaterThan(5000);
        }
    }

    @Test
    @DisplayName("on Redis 7 wake-ups use sharded pub/sub on the lock's own shard")
    void redis7UsesShardedPubSub() throws Exception {
        assumeTrue(
                cluster.version().compareTo("7") >= 0,
                "sharded pub/sub needs Redis 7, this cluster runs " + cluster.version());
        JedisLockProvider p = provider();
        assertThat(p.usesShardedPubSub()).isTrue();
        String name = "sharded:" + System.nanoTime();
        DistributedLockFactory holder = DistributedLockFactory.create(provider());
        DistributedLockFactory waiter = DistributedLockFactory.create(p);
        closeables.add(holder);
        closeables.add(waiter);
        LockHandle held = holder.acquire(name, LockOptions.noWait());
        AtomicLong acquiredAt = new AtomicLong();
        Thread t = new Thread(() -> {
            DistributedLock lock = waiter.getLock(name);
            lock.lock();
            acquiredAt.set(System.nanoTime());
            lock.unlock();
        });
        t.setDaemon(true);
        t.start();
        String channel = Keys.channel(new Keys(JedisLockProvider.DEFAULT_KEY_PREFIX).base(name));
        RedisServer shard = cluster.masterFor(channel);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> ((List<?>) shard.command("PUBSUB", "SHARDCHANNELS")).contains(channel));
        long released = System.nanoTime();
        held.release();
        t.join(10_000);
        assertThat(acquiredAt.get()).isNotZero();
        assertThat(Duration.ofNanos(acquiredAt.get() - released)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("subscribing and unsubscribing in quick succession is always confirmed")
    void subscriptionChurnIsAlwaysConfirmed() {
        JedisLockProvider p = provider();
        WakeUpListener ignore = new WakeUpListener() {
            @Override
            public void released(String grantee) {}

            @Override
            public void missedNotifications() {}
        };
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            String name = "churn:" + (i % 4);
            names.add(name);
            long start = System.nanoTime();
            Subscription s = p.subscribe(name, ignore);
            s.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("subscription %d", i)
                    .isLessThan(Duration.ofSeconds(1));
        }
        List<Subscription> all = new ArrayList<>();
        for (String name : names) {
            all.add(p.subscribe(name, ignore));
        }
        assertThat(p.subscribedChannels()).isEqualTo(names.size());
        all.forEach(Subscription::close);
        assertThat(p.subscribedChannels()).isZero();
    }

    @Test
    @DisplayName(
            "an interrupt does not fail a sharded subscription: it is confirmed, and the interrupt status stays set")
    void interruptedSubscriptionIsConfirmedAndKeepsTheStatus() {
        JedisLockProvider p = provider();
        List<Subscription> all = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            // A name new to the client: its channel needs a confirmation from Redis, which the
            // subscribing thread waits for.
            String name = "interrupted-subscribe:" + System.nanoTime() + ":" + i;
            Thread.currentThread().interrupt();
            try {
                all.add(p.subscribe(name, ignoringListener()));
            } catch (RuntimeException e) {
                failures.add(i + ": " + e);
            }
            assertThat(Thread.interrupted())
                    .as("interrupt status after subscription %d", i)
                    .isTrue();
        }
        assertThat(failures)
                .as("subscriptions that failed because of the interrupt")
                .isEmpty();
        assertThat(p.subscribedChannels()).isEqualTo(20);
        all.forEach(Subscription::close);
    }

    private static WakeUpListener ignoringListener() {
        return new WakeUpListener() {
            @Override
            public void released(String grantee) {}

            @Override
            public void missedNotifications() {}
        };
    }

    @Test
    @DisplayName(
            "listing walks every master: locks on each of them are listed, one SCAN per page on the master it names, never KEYS")
    void listingCoversEveryMaster() {
        JedisLockProvider p = provider();
        Keys keys = new Keys(JedisLockProvider.DEFAULT_KEY_PREFIX);
        String prefix = "listed:" + Long.toString(System.nanoTime(), 36) + "/";
        Set<String> held = new HashSet<>();
        Map<Integer, Integer> perMaster = new HashMap<>();
        for (int i = 0; perMaster.size() < cluster.masters().size() || held.size() < 30; i++) {
            String name = prefix + i;
            p.tryAcquire(new LockRequest(name, "o:" + i, Duration.ofSeconds(30), Duration.ZERO));
            held.add(name);
            perMaster.merge(cluster.masterFor(keys.base(name)).port(), 1, Integer::sum);
        }
        for (RedisServer master : cluster.masters()) {
            master.command("CONFIG", "RESETSTAT");
        }
        Set<String> listed = new HashSet<>();
        int pages = 0;
        String cursor = null;
        do {
            var page = p.list(prefix, cursor, 5);
            pages++;
            page.locks().forEach(h -> listed.add(h.name()));
            cursor = page.next();
        } while (cursor != null);
        assertThat(listed).as("locks listed across %s", perMaster).isEqualTo(held);
        long scans = 0;
        for (RedisServer master : cluster.masters()) {
            String stats = String.valueOf(master.command("INFO", "commandstats"));
            assertThat(stats)
                    .as("commands on master %d", master.port())
                    .contains("cmdstat_scan:")
                    .doesNotContain("cmdstat_keys:");
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile("cmdstat_scan:calls=(\\d+)").matcher(stats);
            assertThat(m.find()).isTrue();
            scans += Long.parseLong(m.group(1));
        }
        assertThat(scans).as("SCANs over all masters for %d pages", pages).isEqualTo(pages);
    }

    @Test
    @DisplayName("listing works over the older JedisCluster client type too")
    @SuppressWarnings("deprecation") // JedisCluster: the client type under test
    void listingOverJedisCluster() {
        redis.clients.jedis.JedisCluster client = new redis.clients.jedis.JedisCluster(cluster.seeds());
        closeables.add(client);
        JedisLockProvider p = JedisLockProvider.builder().client(client).build();
        closeables.add(p);
        String prefix = "listed-old:" + Long.toString(System.nanoTime(), 36) + "/";
        Set<String> held = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            p.tryAcquire(new LockRequest(prefix + i, "o:" + i, Duration.ofSeconds(30), Duration.ZERO));
            held.add(prefix + i);
        }
        Set<String> listed = new HashSet<>();
        String cursor = null;
        do {
            var page = p.list(prefix, cursor, 5);
            page.locks().forEach(h -> listed.add(h.name()));
            cursor = page.next();
        } while (cursor != null);
        assertThat(listed).isEqualTo(held);
        assertThat(p.inspect(prefix + 7)).map(s -> s.holdCounts()).contains(Map.of("o:7", 1));
    }
}
