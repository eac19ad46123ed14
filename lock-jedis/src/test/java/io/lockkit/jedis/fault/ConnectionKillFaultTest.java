package io.lockkit.jedis.fault;

import static io.lockkit.jedis.fault.Faults.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.jedis.fault.ChaosProxy.Cut;
import io.lockkit.jedis.internal.Scripts;
import io.lockkit.jedis.support.Closer;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 3: a client's connection is cut in the middle of an acquire, a renewal or a release,
 * either before Redis sees the request or after Redis ran it but before the reply arrives (a
 * {@link ChaosProxy} between client A and Redis cuts at exactly that request). The provider retries
 * once on a fresh connection, so every retried operation must be idempotent: no hold is freed
 * twice, none is freed for somebody else, and an acquisition whose reply never arrived leaves
 * nothing that is renewed forever. Plus a real {@code CLIENT KILL} of every pooled connection.
 */
@Tag("fault")
@DisplayName("Fault: a client's connection killed during acquire, renew and release")
class ConnectionKillFaultTest {

    @RegisterExtension
    static final RedisExtension REDIS = Faults.localRedis();

    private final Closer closer = new Closer();
    private final Faults.Threads threads = new Faults.Threads();
    private final List<LockLostException> lossesOfA = new CopyOnWriteArrayList<>();
    private RedisServer redis;
    private ChaosProxy proxy;
    /** Client A, through the proxy. */
    private DistributedLockFactory a;
    /** Client B, straight to Redis. */
    private DistributedLockFactory b;
    /** B's provider, for inspection. */
    private JedisLockProvider inspector;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        proxy = closer.add(new ChaosProxy(redis.host(), redis.port()));
        JedisLockProvider viaProxy = Faults.provider(proxy.uri()).build();
        warmUp(viaProxy);
        a = closer.add(Faults.factory(viaProxy, LEASE, lossesOfA::add));
        inspector = Faults.provider(redis.uri()).build();
        b = closer.add(Faults.factory(inspector, LEASE, e -> {}));
    }

    @AfterEach
    void cleanUp() throws Exception {
        threads.close();
        closer.close();
    }

    /** Runs every script once, so that no cut meets a NOSCRIPT round trip instead of the real call. */
    private static void warmUp(JedisLockProvider p) {
        String name = Faults.name("warm-up");
        p.tryAcquire(new LockRequest(name, "w:1", LEASE, Duration.ZERO));
        p.renew(List.of(new Renewal(name, "w:1", LEASE)));
        p.inspect(name);
        p.release(name, "w:1");
    }

    private Map<String, Integer> holdCounts(String name) {
        return inspector.inspect(name).map(s -> s.holdCounts()).orElse(Map.of());
    }

    private static void awaitCut(CountDownLatch cut) throws InterruptedException {
        assertThat(cut.await(5, TimeUnit.SECONDS))
                .as("the proxy cut the connection")
                .isTrue();
    }

    // ---- acquire ----

    @Test
    @DisplayName("an acquisition whose reply was lost is retried; the doubled hold count is released in full")
    void acquireWithLostReplyIsRetriedAndReleasedInFull() throws Exception {
        String name = Faults.name("acquire-reply");
        CountDownLatch cut = proxy.cutNext(Cut.REPLY, 1, Scripts.ACQUIRE.sha(), name);
        LockHandle held = a.acquire(name, LockOptions.noWait());
        awaitCut(cut);
        assertThat(holdCounts(name).values())
                .as("both attempts ran: the retry took the lock reentrantly")
                .containsExactly(2);
        assertThat(b.tryAcquire(name)).isEmpty();
        held.release();
        assertThat(Faults.held(redis, name)).as("released completely").isFalse();
        try (LockHandle next = b.tryAcquire(name).orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThat(lossesOfA).isEmpty();
    }

    @Test
    @DisplayName("a thread's lock whose reply was lost is retried and unlocked in full")
    void threadLockWithLostReplyIsUnlockedInFull() throws Exception {
        String name = Faults.name("lock-reply");
        DistributedLock lock = a.getLock(name);
        CountDownLatch cut = proxy.cutNext(Cut.REPLY, 1, Scripts.ACQUIRE.sha(), name);
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        awaitCut(cut);
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(Faults.held(redis, name)).isFalse();
        assertThat(lossesOfA).isEmpty();
    }

    @Test
    @DisplayName(
            "an acquisition whose replies were all lost fails, and the hold it left is never renewed and ends after its lease")
    void acquireWithAllRepliesLostLeavesNothingRenewed() throws Exception {
        String name = Faults.name("acquire-orphan");
        CountDownLatch cut = proxy.cutNext(Cut.REPLY, 2, Scripts.ACQUIRE.sha(), name);
        assertThatThrownBy(() -> a.acquire(name, LockOptions.noWait())).isInstanceOf(BackendUnavailableException.class);
        awaitCut(cut);
        assertThat(holdCounts(name))
                .as("the attempts ran on Redis, for an owner the client gave up")
                .hasSize(1);
        long previous = (Long) redis.command("PTTL", Faults.lockKey(name));
        assertThat(previous).isPositive().isLessThanOrEqualTo(LEASE.toMillis());
        long start = System.nanoTime();
        while (true) {
            long ttl = (Long) redis.command("PTTL", Faults.lockKey(name));
            if (ttl < 0) {
                break;
            }
            assertThat(ttl).as("nobody renews the orphan").isLessThanOrEqualTo(previous);
            previous = ttl;
            assertThat(Faults.millisSince(start))
                    .isLessThan(LEASE.plusSeconds(1).toMillis());
            Thread.sleep(20);
        }
        Thread.sleep(LEASE.toMillis() / 2); // a renewal interval: the key stays gone
        assertThat(Faults.held(redis, name)).isFalse();
        assertThat(b.tryAcquire(name)).isPresent();
        assertThat(lossesOfA).isEmpty();
    }

    @Test
    @DisplayName("an acquisition whose request was lost is retried and counted once")
    void acquireWithLostRequestIsRetried() throws Exception {
        String name = Faults.name("acquire-request");
        CountDownLatch cut = proxy.cutNext(Cut.REQUEST, 1, Scripts.ACQUIRE.sha(), name);
        LockHandle held = a.acquire(name, LockOptions.noWait());
        awaitCut(cut);
        assertThat(holdCounts(name).values()).containsExactly(1);
        held.release();
        assertThat(Faults.held(redis, name)).isFalse();
    }

    // ---- renew ----

    @Test
    @DisplayName("renewals whose replies or requests were lost are retried, and the hold stays valid")
    void renewalsWithLostRepliesOrRequestsKeepTheHold() throws Exception {
        String name = Faults.name("renew");
        LockHandle held = a.acquire(name, LockOptions.noWait());
        // Both attempts of one renewal lose their reply: the watchdog retries it soon after.
        // (A renewal goes as EVALSHA, or as EVAL with the text when it opens a pipeline.)
        String renewal = ChaosProxy.anyOf(Scripts.RENEW.sha(), "Sets the lease of holds");
        awaitCut(proxy.cutNext(Cut.REPLY, 2, renewal, name));
        awaitCut(proxy.cutNext(Cut.REQUEST, 2, renewal, name));
        Thread.sleep(LEASE.toMillis()); // renewals after the cuts
        assertThat(held.isValid()).isTrue();
        assertThat(lossesOfA).isEmpty();
        assertThat((Long) redis.command("PTTL", Faults.lockKey(name))).isGreaterThan(LEASE.toMillis() / 3);
        assertThat(b.tryAcquire(name)).isEmpty();
        held.release();
        assertThat(Faults.held(redis, name)).isFalse();
    }

    // ---- release ----

    @Test
    @DisplayName("a reentrant release whose reply was lost is not applied twice: the outer hold stays held")
    void innerReleaseWithLostReplyKeepsTheOuterHold() throws Exception {
        String name = Faults.name("inner-release");
        LockHandle held = a.acquire(name, LockOptions.noWait());
        held.acquireAgain();
        assertThat(holdCounts(name).values()).containsExactly(2);
        CountDownLatch cut = proxy.cutNext(Cut.REPLY, 1, Scripts.RELEASE.sha(), name);
        held.release();
        awaitCut(cut);
        assertThat(held.holdCount()).isEqualTo(1);
        assertThat(holdCounts(name).values())
                .as("the retry did not release the outer hold as well")
                .containsExactly(1);
        assertThat(b.tryAcquire(name)).as("the lock is still exclusive").isEmpty();
        held.release();
        assertThat(Faults.held(redis, name)).isFalse();
        assertThat(lossesOfA).isEmpty();
    }

    @Test
    @DisplayName("a release whose reply was lost never frees the hold the next owner took meanwhile")
    void releaseWithLostReplyNeverFreesTheNextHolder() throws Exception {
        String name = Faults.name("release-reply");
        LockHandle held = a.acquire(name, LockOptions.noWait());
        AtomicReference<LockHandle> next = new AtomicReference<>();
        threads.start("waiter", () -> {
            try {
                next.set(b.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(10))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        String queue = Faults.lockKey(name) + ":q";
        await().atMost(Duration.ofSeconds(5)).until(() -> (Long) redis.command("ZCARD", queue) == 1L);

        CountDownLatch cut = proxy.cutNext(Cut.REPLY, 1, Scripts.RELEASE.sha(), name);
        Throwable outcome = catchThrowable(held::release);
        awaitCut(cut);
        // The first attempt handed the lock to B; the retry finds A no longer holding it. A cannot
        // tell that from a lease that lapsed, so it may report a loss: the error is on the safe side.
        assertThat(outcome)
                .satisfiesAnyOf(o -> assertThat(o).isNull(), o -> assertThat(o).isInstanceOf(LockLostException.class));
        await().atMost(Duration.ofSeconds(5)).until(() -> next.get() != null);
        assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());
        Thread.sleep(LEASE.toMillis() / 2);
        assertThat(next.get().isValid()).isTrue();
        assertThat(holdCounts(name).values()).as("B holds it, once").containsExactly(1);
        assertThat(a.tryAcquire(name))
                .as("A's retried release freed nothing of B's")
                .isEmpty();
        next.get().release();
        System.out.println("release with a lost reply, after a hand-over: A's release "
                + (outcome == null ? "returned normally" : "reported " + outcome.getMessage()));
    }

    @Test
    @DisplayName("a release whose request was lost is retried and releases normally")
    void releaseWithLostRequestIsRetried() throws Exception {
        String name = Faults.name("release-request");
        LockHandle held = a.acquire(name, LockOptions.noWait());
        CountDownLatch cut = proxy.cutNext(Cut.REQUEST, 1, Scripts.RELEASE.sha(), name);
        held.release();
        awaitCut(cut);
        assertThat(Faults.held(redis, name)).isFalse();
        assertThat(lossesOfA).isEmpty();
    }

    // ---- CLIENT KILL ----

    @Test
    @DisplayName("CLIENT KILL of every pooled connection between acquire, renew and release is invisible to the holder")
    void clientKillOfPooledConnectionsIsInvisible() throws Exception {
        String name = Faults.name("client-kill");
        JedisLockProvider direct =
                Faults.provider(redis.uri()).clientName("kill-me").build();
        List<LockLostException> losses = new CopyOnWriteArrayList<>();
        DistributedLockFactory c = closer.add(Faults.factory(direct, LEASE, losses::add));
        // Several connections in the pool, as after a burst: after the kill every one of them is stale.
        CountDownLatch together = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            threads.start("burst-" + i, () -> {
                try {
                    together.countDown();
                    together.await();
                    for (int j = 0; j < 20; j++) {
                        c.acquire(Faults.name("warm"), LockOptions.noWait()).release();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertThat(threads.join(Duration.ofSeconds(10))).isTrue();
        assertThat(killConnections("kill-me")).isPositive();
        LockHandle held = c.acquire(name, LockOptions.noWait());
        assertThat(killConnections("kill-me")).isPositive();
        Thread.sleep(LEASE.toMillis()); // renewals on fresh connections
        assertThat(held.isValid()).isTrue();
        assertThat(killConnections("kill-me")).isPositive();
        held.release();
        assertThat(Faults.held(redis, name)).isFalse();
        assertThat(losses).isEmpty();
    }

    /** Kills every connection named {@code clientName}; returns how many. */
    private long killConnections(String clientName) {
        String clients = (String) redis.command("CLIENT", "LIST", "TYPE", "normal");
        return clients.lines()
                .filter(l -> l.contains(" name=" + clientName + " "))
                .map(l -> l.substring(l.indexOf("id=") + 3, l.indexOf(' ')))
                .mapToLong(id -> (Long) redis.command("CLIENT", "KILL", "ID", id))
                .sum();
    }
}
