package io.lockkit.jedis.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.jedis.support.Closer;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 4: the pub/sub connection that carries wake-ups is killed while 100 threads wait, and
 * again and again while they take the lock in turn. Every wake-up lost with it must be made up
 * for by the resubscription, not by waiting out a 30 s lease.
 */
@Tag("fault")
@DisplayName("Fault: the pub/sub connection killed while 100 threads wait")
class PubSubKillFaultTest {

    private static final int CLIENTS = 2;
    private static final int THREADS_PER_CLIENT = 50;

    @RegisterExtension
    static final RedisExtension REDIS = Faults.localRedis();

    private final Closer closer = new Closer();
    private final Faults.Threads threads = new Faults.Threads();

    @AfterEach
    void cleanUp() throws Exception {
        threads.close();
        closer.close();
    }

    @Test
    @DisplayName("100 waiters on two clients all acquire in turn while their pub/sub connections are killed repeatedly")
    void waitersAllAcquireWhilePubSubIsKilled() throws Exception {
        RedisServer redis = REDIS.server();
        String name = Faults.name("pubsub-kill");
        // The default 30 s watchdog lease: a waiter that missed its wake-up would otherwise sleep for most of it.
        Duration lease = LockOptions.DEFAULT_WATCHDOG_LEASE;
        DistributedLockFactory holder =
                closer.add(Faults.factory(Faults.provider(redis.uri()).build(), lease, e -> {}));
        LockHandle held = holder.acquire(name, LockOptions.noWait());

        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicInteger done = new AtomicInteger();
        for (int c = 0; c < CLIENTS; c++) {
            DistributedLockFactory client =
                    closer.add(Faults.factory(Faults.provider(redis.uri()).build(), lease, e -> {}));
            DistributedLock lock = client.getLock(name);
            for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                threads.start("waiter-" + c + "-" + t, () -> {
                    try {
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            tokens.add(lock.fencingToken());
                            Thread.sleep(5);
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                        done.incrementAndGet();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
            }
        }
        int waiters = CLIENTS * THREADS_PER_CLIENT;
        await().atMost(Duration.ofSeconds(10))
                .until(() -> (Long) redis.command("ZCARD", Faults.lockKey(name) + ":q") == waiters);
        await().atMost(Duration.ofSeconds(5)).until(() -> pubSubConnections(redis) == CLIENTS);

        long kills = (Long) redis.command("CLIENT", "KILL", "TYPE", "pubsub");
        AtomicBoolean draining = new AtomicBoolean(true);
        AtomicInteger killsDuringDrain = new AtomicInteger();
        threads.start("killer", () -> {
            while (draining.get()) {
                try {
                    Thread.sleep(50);
                    killsDuringDrain.addAndGet(((Long) redis.command("CLIENT", "KILL", "TYPE", "pubsub")).intValue());
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // the server is busy: try again
                }
            }
        });
        long start = System.nanoTime();
        held.release();
        await().atMost(Duration.ofSeconds(25)).until(() -> done.get() + failures.size() == waiters);
        long drained = Faults.millisSince(start);
        draining.set(false);
        System.out.printf(
                "pub/sub killed: %d waiters drained in %d ms; pub/sub connections killed: %d before, %d during%n",
                done.get(), drained, kills, killsDuringDrain.get());
        assertThat(failures).isEmpty();
        assertThat(done).hasValue(waiters);
        assertThat(overlaps).hasValue(0);
        assertThat(tokens).as("tokens in order of acquisition").isSorted().doesNotHaveDuplicates();
        assertThat(kills).isEqualTo(CLIENTS);
        assertThat(killsDuringDrain.get())
                .as("the connections were killed during the drain too")
                .isPositive();
        // Far below the 30 s lease that a lost wake-up would cost without the resubscription.
        assertThat(drained).isLessThan(TimeUnit.SECONDS.toMillis(20));
    }

    @Test
    @DisplayName("the pub/sub connection comes back promptly however often it was killed before")
    void pubSubReconnectsPromptlyAfterRepeatedKills() throws Exception {
        RedisServer redis = REDIS.server();
        String name = Faults.name("pubsub-repeat");
        Duration lease = LockOptions.DEFAULT_WATCHDOG_LEASE;
        DistributedLockFactory holder =
                closer.add(Faults.factory(Faults.provider(redis.uri()).build(), lease, e -> {}));
        DistributedLockFactory waiter =
                closer.add(Faults.factory(Faults.provider(redis.uri()).build(), lease, e -> {}));
        LockHandle held = holder.acquire(name, LockOptions.noWait());
        AtomicInteger acquired = new AtomicInteger();
        threads.start("waiter", () -> {
            DistributedLock lock = waiter.getLock(name);
            lock.lock();
            acquired.incrementAndGet();
            lock.unlock();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> pubSubConnections(redis) == 1);
        List<Long> reconnects = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            assertThat((Long) redis.command("CLIENT", "KILL", "TYPE", "pubsub")).isEqualTo(1L);
            long killed = System.nanoTime();
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> pubSubConnections(redis) == 1);
            reconnects.add(Faults.millisSince(killed));
        }
        System.out.println("pub/sub reconnected after each of 8 kills in (ms): " + reconnects);
        // A connection that worked and then broke is re-made at once; back-off is for failed attempts.
        assertThat(reconnects).allSatisfy(ms -> assertThat(ms).isLessThan(500L));
        long released = System.nanoTime();
        held.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> acquired.get() == 1);
        assertThat(Faults.millisSince(released)).isLessThan(1000L);
    }

    @Test
    @DisplayName(
            "after CLIENT KILL TYPE normal and then TYPE pubsub, every wake-up connection is back at once (median of 20 rounds within 200 ms)")
    void pubSubReconnectsPromptlyWhenThePooledConnectionsDiedFirst() throws Exception {
        // The pub/sub connection comes from the command pool: after the command connections were
        // killed, every idle one in the pool is dead, and a reconnect that meets them must not
        // back off as if Redis were away (an operator's kills, a proxy restart).
        RedisServer redis = REDIS.server();
        String name = Faults.name("pubsub-after-normal");
        Duration lease = LockOptions.DEFAULT_WATCHDOG_LEASE;
        List<JedisLockProvider> providers = List.of(
                Faults.provider(redis.uri()).build(),
                Faults.provider(redis.uri()).build());
        DistributedLockFactory holder = closer.add(Faults.factory(providers.get(0), lease, e -> {}));
        DistributedLockFactory waiter = closer.add(Faults.factory(providers.get(1), lease, e -> {}));
        // Both providers start their wake-up connection with a lock that may wait.
        LockHandle held = holder.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(1)));
        AtomicInteger acquired = new AtomicInteger();
        threads.start("waiter", () -> {
            DistributedLock lock = waiter.getLock(name);
            lock.lock();
            acquired.incrementAndGet();
            lock.unlock();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> pubSubConnections(redis) == 2);
        int rounds = 20;
        List<Long> backAfter = new ArrayList<>();
        // Command traffic all along, as an application has: renewals borrow pooled connections.
        AtomicBoolean busy = new AtomicBoolean(true);
        for (JedisLockProvider p : providers) {
            for (int t = 0; t < 3; t++) {
                threads.start("traffic-" + t, () -> {
                    while (busy.get()) {
                        try {
                            p.renew(List.of(new Renewal(name, "nobody:1", Duration.ofSeconds(1))));
                        } catch (RuntimeException e) {
                            // killed under it: the next call gets a fresh connection
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                });
            }
        }
        for (int i = 0; i < rounds; i++) {
            for (JedisLockProvider p : providers) {
                fillPool(p, name);
            }
            long normal = (Long) redis.command("CLIENT", "KILL", "TYPE", "normal");
            assertThat(normal).as("command connections killed in round %d", i).isGreaterThanOrEqualTo(POOLED);
            assertThat((Long) redis.command("CLIENT", "KILL", "TYPE", "pubsub")).isEqualTo(2L);
            long killed = System.nanoTime();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(2))
                    .until(() -> pubSubConnections(redis) == 2);
            backAfter.add(Faults.millisSince(killed));
        }
        busy.set(false);
        System.out.println("pub/sub back after CLIENT KILL normal + pubsub, " + rounds + " rounds (ms): " + backAfter);
        // Backing off on each of the POOLED dead connections would cost every round at least
        // 25 + 50 + 100 + 200 + 200 ms (OutageTracker's pauses); the median says whether the rounds
        // paid it, and a single round slowed by the machine's load does not convict.
        List<Long> sorted = backAfter.stream().sorted().toList();
        assertThat(sorted.get(rounds / 2))
                .as("median ms until both wake-up connections were back, of %s", backAfter)
                .isLessThanOrEqualTo(200L);
        assertThat(backAfter)
                .as("ms until both wake-up connections were back")
                .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(2_000L));
        // And they carry wake-ups: the waiter hears the release, far sooner than the 30 s lease.
        long released = System.nanoTime();
        held.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> acquired.get() == 1);
        assertThat(Faults.millisSince(released)).isLessThan(1000L);
    }

    /** Idle connections each provider's pool holds before a round's kills. */
    private static final int POOLED = 6;

    /** Leaves {@value #POOLED} idle connections in the provider's command pool (renewals borrow pooled connections). */
    private static void fillPool(JedisLockProvider provider, String name) throws InterruptedException {
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(POOLED);
        List<Thread> borrowers = new ArrayList<>();
        for (int t = 0; t < POOLED; t++) {
            Thread b = new Thread(() -> {
                for (int i = 0; i < 20; i++) {
                    try {
                        together.await(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        return;
                    }
                    provider.renew(List.of(new Renewal(name, "nobody:1", Duration.ofSeconds(1))));
                }
            });
            b.start();
            borrowers.add(b);
        }
        for (Thread b : borrowers) {
            b.join(10_000);
        }
    }

    private static long pubSubConnections(RedisServer redis) {
        String clients = (String) redis.command("CLIENT", "LIST", "TYPE", "pubsub");
        return clients.lines().filter(l -> !l.isBlank()).count();
    }
}
