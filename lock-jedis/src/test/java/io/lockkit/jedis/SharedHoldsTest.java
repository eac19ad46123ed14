package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import io.lockkit.jedis.internal.InspectScript;
import io.lockkit.jedis.internal.Keys;
import io.lockkit.jedis.internal.Scripts;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.HeldLock;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.Release;
import io.lockkit.testkit.redis.CommandMonitor;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.RedisClient;

/**
 * The Redis provider's shared holds and fair claims beyond the kit's groups: how they are stored
 * (keys left behind, TTLs), what releases publish, and what operators see. Against one Redis of
 * its own.
 */
class SharedHoldsTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Claim READ = Claim.shared(1, Claim.UNBOUNDED);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String COUNTED = "counted-shared";

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private RedisServer redis;
    private JedisLockProvider p;
    private String name;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        p = JedisLockProvider.builder().uri(redis.uri()).clientName(COUNTED).build();
        closeables.add(p);
        name = "shared:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private boolean admits(String owner, Claim claim, Duration lease, Duration wait) {
        return p.tryAcquire(new LockRequest(name, owner, lease, wait, 0, claim)).isAcquired();
    }

    private boolean admits(String owner, Claim claim) {
        return admits(owner, claim, LEASE, Duration.ZERO);
    }

    private String base() {
        return "lockkit:{" + name + "}";
    }

    private Set<String> keys() {
        @SuppressWarnings("unchecked")
        List<String> found = (List<String>) redis.command("KEYS", base() + "*");
        return Set.copyOf(found);
    }

    /** The wake-up messages of the name, as listener calls: the grantee, or "" for none. */
    private LinkedBlockingQueue<String> wakeUps() {
        LinkedBlockingQueue<String> heard = new LinkedBlockingQueue<>();
        Subscription s = p.subscribe(name, new WakeUpListener() {
            @Override
            public void released(@Nullable String grantee) {
                heard.add(grantee == null ? "" : grantee);
            }

            @Override
            public void missedNotifications() {}
        });
        closeables.add(s);
        return heard;
    }

    @Test
    @DisplayName("a reader waiting on a writer, and a waiter for permits, hear the release without a grantee")
    void waitingSharedClaimsHearTheRelease() throws InterruptedException {
        LinkedBlockingQueue<String> heard = wakeUps();
        assertThat(admits("w:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(admits("r:t1r", READ, LEASE, WAIT)).isFalse();
        assertThat(p.release(name, "w:t1")).isEqualTo(Release.RELEASED);
        assertThat(heard.poll(10, TimeUnit.SECONDS))
                .as("the writer's release, told to the waiting reader")
                .isEqualTo("");
        assertThat(admits("r:t1r", READ)).isTrue();
        assertThat(p.release(name, "r:t1r")).isEqualTo(Release.RELEASED);

        assertThat(admits("a:h1", Claim.shared(2, 2))).isTrue();
        assertThat(admits("b:h1", Claim.shared(1, 2), LEASE, WAIT)).isFalse();
        assertThat(p.release(name, "a:h1"))
                .as("a shared release names no grantee")
                .isEqualTo(Release.RELEASED);
        assertThat(heard.poll(10, TimeUnit.SECONDS))
                .as("the permits' release, told to the waiter for one")
                .isEqualTo("");
        assertThat(admits("b:h1", Claim.shared(1, 2))).isTrue();
    }

    @Test
    @DisplayName("a queued writer that gives up wakes the readers it held back")
    void aWriterThatGivesUpWakesTheReadersItHeldBack() throws InterruptedException {
        LinkedBlockingQueue<String> heard = wakeUps();
        assertThat(admits("a:t1r", READ)).isTrue();
        assertThat(admits("w:t1", Claim.EXCLUSIVE, LEASE, WAIT)).isFalse();
        assertThat(admits("b:t1r", READ, LEASE, WAIT))
                .as("a new reader behind the queued writer")
                .isFalse();
        p.abandon(name, "w:t1", 0);
        assertThat(heard.poll(10, TimeUnit.SECONDS))
                .as("the writer's abandon, told to the reader")
                .isEqualTo("");
        assertThat(admits("b:t1r", READ)).isTrue();
    }

    @Test
    @DisplayName("a writer gets in once the last live reader's lease ends, not the longest lease of a reader gone")
    void aWriterWaitsOnlyForLiveReaders() {
        assertThat(admits("x:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(p.release(name, "x:t1")).isEqualTo(Release.RELEASED); // the hash stays, for the fence retention
        assertThat(admits("long:t1r", READ, Duration.ofSeconds(60), Duration.ZERO))
                .isTrue();
        assertThat(admits("short:t1r", READ, Duration.ofMillis(300), Duration.ZERO))
                .isTrue();
        assertThat(p.release(name, "long:t1r")).isEqualTo(Release.RELEASED);
        long ttl = (Long) redis.command("PTTL", base());
        assertThat(ttl).as("the hash's TTL: the short reader's lease left").isLessThanOrEqualTo(300);

        await("a writer admitted after the short reader's lease, well before 60 s")
                .atMost(Duration.ofSeconds(10))
                .until(() -> admits("w:t1", Claim.EXCLUSIVE));
    }

    @Test
    @DisplayName("an exclusive holder's shorter renewal does not end the read hold beside it")
    void aWritersRenewalKeepsTheReadHoldBesideIt() throws InterruptedException {
        assertThat(admits("a:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(admits("a:t1r", READ.beside("a:t1"))).isTrue();
        assertThat(p.renew(List.of(new Renewal(name, "a:t1", Duration.ofMillis(200)))))
                .isEmpty();
        Thread.sleep(600); // past the writer's renewed lease: only the TTL is under test
        assertThat(p.inspect(name).orElseThrow().holdCounts()).containsEntry("a:t1r", 1);
        assertThat(p.renew(List.of(new Renewal(name, "a:t1r", LEASE)))).isEmpty();
        assertThat(p.release(name, "a:t1r")).isEqualTo(Release.RELEASED);
        assertThat(p.release(name, "a:t1")).isEqualTo(Release.RELEASED);
        assertThat(p.inspect(name)).isEmpty();
    }

    @Test
    @DisplayName("once every holder released, only the lock's hash (its last token, for the fence retention) "
            + "and the stored capacity stay")
    void nothingButTheHashAndTheCapacityStays() {
        assertThat(admits("a:h1", Claim.shared(2, 3))).isTrue();
        assertThat(admits("b:h1", Claim.shared(1, 3))).isTrue();
        assertThat(admits("c:h1", Claim.shared(2, 3).fairly(), LEASE, WAIT)).isFalse();
        assertThat(admits("d:t1", Claim.EXCLUSIVE, LEASE, WAIT)).isFalse();
        p.abandon(name, "c:h1", 0);
        p.abandon(name, "d:t1", 0);
        assertThat(p.release(name, "a:h1")).isEqualTo(Release.RELEASED);
        assertThat(p.release(name, "b:h1")).isEqualTo(Release.RELEASED);

        assertThat(keys()).containsExactlyInAnyOrder(base(), base() + ":cap");
        assertThat(redis.command("HGET", base() + ":cap", "n")).isEqualTo("3");
        assertThat((Long) redis.command("PTTL", base() + ":cap"))
                .as("the capacity outlives its holders")
                .isEqualTo(-1L);
        long ttl = (Long) redis.command("PTTL", base());
        assertThat(ttl).isPositive().isLessThanOrEqualTo(JedisLockProvider.DEFAULT_FENCE_RETENTION.toMillis());
        @SuppressWarnings("unchecked")
        List<String> fields = (List<String>) redis.command("HKEYS", base());
        assertThat(fields).as("the hash keeps the token only").containsExactly("~t");

        assertThat(admits("r:t1r", READ)).isTrue();
        assertThat(p.release(name, "r:t1r")).isEqualTo(Release.RELEASED);
        assertThat(keys()).as("readers store no capacity").containsExactlyInAnyOrder(base(), base() + ":cap");
    }

    @Test
    @DisplayName("inspect and list show each shared holder's count; force release frees them all")
    void operatorsSeeAndFreeEverySharedHolder() {
        assertThat(admits("a:t1r", READ)).isTrue();
        assertThat(admits("a:t1r", READ)).isTrue();
        assertThat(admits("b:t1r", READ)).isTrue();
        Map<String, Integer> counts = Map.of("a:t1r", 2, "b:t1r", 1);
        assertThat(p.inspect(name).orElseThrow().holdCounts()).isEqualTo(counts);
        List<HeldLock> listed = p.list(name, null, 1000).locks();
        assertThat(listed)
                .singleElement()
                .satisfies(l -> assertThat(l.state().holdCounts()).isEqualTo(counts));

        assertThat(p.forceRelease(name)).isTrue();
        assertThat(p.inspect(name)).isEmpty();
        assertThat(p.renew(List.of(new Renewal(name, "b:t1r", LEASE))))
                .as("a forced-out reader's renewal reports it gone")
                .hasSize(1);
        assertThat(admits("w:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(p.forceRelease(name)).isTrue();
        assertThat(p.forceRelease(name)).isFalse();
    }

    @Test
    @DisplayName("a claim of more permits than the stored capacity is refused naming it, and queues nothing")
    void moreThanTheStoredCapacityIsRefused() {
        assertThat(admits("a:h1", Claim.shared(1, 2))).isTrue();
        assertThatThrownBy(() -> admits("b:h1", Claim.shared(3, 5).fairly(), LEASE, WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must not exceed the capacity 2");
        assertThat(keys()).doesNotContain(base() + ":q", base() + ":qd");
        assertThat(p.inspect(name).orElseThrow().holdCounts()).containsOnlyKeys("a:h1");
    }

    @Test
    @DisplayName("with a fair waiter queued, a release hands over in arrival order, not to its own client first")
    void aFairQueueHandsOverInArrivalOrder() {
        Claim fair = Claim.EXCLUSIVE.fairly();
        assertThat(admits("c1:t1", fair)).isTrue();
        assertThat(admits("c2:t1", fair, LEASE, WAIT)).isFalse();
        assertThat(admits("c1:t2", fair, LEASE, WAIT)).isFalse();
        Release r = p.release(name, "c1:t1");
        assertThat(r.grantee())
                .as("the earlier waiter of another client, not the releasing client's")
                .isEqualTo("c2:t1");
        assertThat(r.grantToken()).isZero();
    }

    @Test
    @DisplayName("a release with a fair shared claim first in the queue hands over to nobody; that claim goes first")
    void aSharedWaiterFirstGetsNoHandOver() {
        assertThat(admits("x:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(admits("s:h1", Claim.shared(1, 2).fairly(), LEASE, WAIT)).isFalse();
        assertThat(admits("w:t1", Claim.EXCLUSIVE.fairly(), LEASE, WAIT)).isFalse();
        assertThat(p.release(name, "x:t1")).isEqualTo(Release.RELEASED);
        assertThat(admits("w:t1", Claim.EXCLUSIVE.fairly(), LEASE, WAIT))
                .as("the fair writer behind the shared waiter")
                .isFalse();
        assertThat(admits("s:h1", Claim.shared(1, 2).fairly(), LEASE, WAIT)).isTrue();
        assertThat(p.release(name, "s:h1")).isEqualTo(Release.RELEASED);
        assertThat(admits("w:t1", Claim.EXCLUSIVE.fairly(), LEASE, WAIT)).isTrue();
    }

    @Test
    @DisplayName("a repeated attempt of the wait that took a shared hold (a lost reply) is the same hold, not another")
    void aRetriedAttemptOfTheSameWaitIsTheSameHold() {
        Claim permit = Claim.shared(1, 3);
        long token = p.tryAcquire(new LockRequest(name, "a:h1", LEASE, WAIT, 7, permit))
                .fencingToken();
        assertThat(p.tryAcquire(new LockRequest(name, "a:h1", LEASE, WAIT, 7, permit))
                        .fencingToken())
                .isEqualTo(token);
        assertThat(p.inspect(name).orElseThrow().holdCounts()).containsEntry("a:h1", 1);
        assertThat(p.tryAcquire(new LockRequest(name, "a:h1", LEASE, WAIT, 8, permit))
                        .fencingToken())
                .as("another wait of the owner re-enters")
                .isEqualTo(token);
        assertThat(p.inspect(name).orElseThrow().holdCounts()).containsEntry("a:h1", 2);
        assertThat(p.release(name, "a:h1")).isEqualTo(Release.STILL_HELD);
        assertThat(p.release(name, "a:h1")).isEqualTo(Release.RELEASED);
        assertThat(p.inspect(name)).isEmpty();
    }

    @Test
    @DisplayName("an operator's capacity governs: holders over a reduced one keep their permits, waiters hear of it")
    void anOperatorsCapacityGoverns() throws InterruptedException {
        LinkedBlockingQueue<String> heard = wakeUps();
        assertThat(admits("a:h1", Claim.shared(2, 4))).isTrue();
        assertThat(admits("b:h1", Claim.shared(2, 4))).isTrue();
        p.setCapacity(name, 2);
        assertThat(admits("c:h1", Claim.shared(1, 4), LEASE, WAIT))
                .as("four permits held of two")
                .isFalse();
        assertThatThrownBy(() -> admits("c:h2", Claim.shared(3, 4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must not exceed the capacity 2");
        assertThat(p.inspect(name).orElseThrow().holdCounts()).containsOnlyKeys("a:h1", "b:h1");
        heard.clear();
        p.setCapacity(name, 5);
        assertThat(heard.poll(10, TimeUnit.SECONDS))
                .as("the raised capacity, told to the waiter")
                .isEqualTo("");
        assertThat(admits("c:h1", Claim.shared(1, 4))).isTrue();
        assertThat(redis.command("HGET", base() + ":cap", "n")).isEqualTo("5");
        assertThatThrownBy(() -> p.setCapacity(name, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity");
    }

    @Test
    @DisplayName("inspection reads each shared holder's weight and the stored capacity")
    void inspectionReadsWeightsAndTheCapacity() {
        assertThat(admits("x:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(admits("x:t1r", READ.beside("x:t1"))).isTrue();
        assertThat(admits("a:h1", Claim.shared(2, 3).beside("x:t1"))).isTrue();
        Object reply;
        try (RedisClient client = RedisClient.create(redis.host(), redis.port())) {
            reply = Scripts.INSPECT.call(client, Keys.shared(base()), List.of());
        }
        InspectScript.Held held = (InspectScript.Held) InspectScript.decode(reply);
        assertThat(held.holdCounts()).containsExactly(entry("x:t1", 1), entry("x:t1r", 1), entry("a:h1", 1));
        assertThat(held.claims())
                .as("the shared holders' claims; the exclusive holder has none here")
                .containsOnly(entry("x:t1r", Claim.shared(1, 3)), entry("a:h1", Claim.shared(2, 3)));
        assertThat(held.capacity()).isEqualTo(3);

        assertThat(p.release(name, "a:h1")).isEqualTo(Release.RELEASED);
        assertThat(p.release(name, "x:t1r")).isEqualTo(Release.RELEASED);
        try (RedisClient client = RedisClient.create(redis.host(), redis.port())) {
            reply = Scripts.INSPECT.call(client, Keys.shared(base()), List.of());
        }
        held = (InspectScript.Held) InspectScript.decode(reply);
        assertThat(held.holdCounts()).containsOnlyKeys("x:t1");
        assertThat(held.claims()).isEmpty();
        assertThat(held.capacity()).as("not read for an exclusive hold").isEqualTo(-1);
    }

    @Test
    @DisplayName("a shared acquisition and its release cost one script call each")
    void aSharedPairCostsTwoCommands() {
        assertThat(admits("warm:h1", Claim.shared(1, 3))).isTrue(); // pooled connections made
        assertThat(p.release(name, "warm:h1")).isEqualTo(Release.RELEASED);
        Map<String, Long> sent;
        try (CommandMonitor monitor = CommandMonitor.start(redis, COUNTED)) {
            for (int i = 0; i < 10; i++) {
                assertThat(admits("a:h" + i, Claim.shared(1, 3))).isTrue();
                assertThat(p.release(name, "a:h" + i)).isEqualTo(Release.RELEASED);
            }
            sent = monitor.stop();
        }
        assertThat(sent.getOrDefault("evalsha", 0L) + sent.getOrDefault("eval", 0L))
                .as("script calls for 10 shared acquire + release pairs")
                .isEqualTo(20);
    }
}
