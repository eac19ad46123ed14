package io.lockkit.jedis.fault;

import static io.lockkit.jedis.fault.Faults.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.support.Closer;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * Fault 7: the lock key disappears under its holder — evicted by Redis under memory pressure
 * ({@code maxmemory} with a {@code volatile-*} policy: lock keys carry a TTL, so they are
 * candidates) or deleted by hand. The holder must hear of it at its next renewal, not at its
 * deadline, and the next owner's token must still be greater.
 */
@Tag("fault")
@DisplayName("Fault: a lock key evicted or deleted by hand")
class KeyLossFaultTest {

    /**
     * {@code volatile-ttl} evicts the keys closest to expiry first, so a lock key (a lease of
     * 1.5 s) goes before the junk (ten minutes): deterministic, unlike {@code volatile-lru} or
     * {@code volatile-random}, which would get there too, only after more junk.
     */
    @RegisterExtension
    static final RedisExtension REDIS = Faults.localRedis("--maxmemory", "4mb", "--maxmemory-policy", "volatile-ttl");

    private final Closer closer = new Closer();
    private final Faults.Threads threads = new Faults.Threads();
    private final Map<String, Long> heardAt = new ConcurrentHashMap<>();

    @AfterEach
    void cleanUp() throws Exception {
        threads.close();
        closer.close();
        REDIS.server().command("FLUSHALL");
    }

    private DistributedLockFactory client() {
        return closer.add(Faults.factory(
                Faults.provider(REDIS.server().uri()).build(),
                LEASE,
                e -> heardAt.putIfAbsent(e.lockName(), System.nanoTime())));
    }

    @Test
    @DisplayName("a lock key deleted by hand: the holder is told at its next renewal")
    void deletedKeyIsReportedAtTheNextRenewal() throws Exception {
        RedisServer redis = REDIS.server();
        DistributedLockFactory a = client();
        String handleLock = Faults.name("deleted-handle");
        String threadLock = Faults.name("deleted-thread");
        LockHandle held = a.acquire(handleLock, LockOptions.noWait());
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch unlock = new CountDownLatch(1);
        AtomicReference<Throwable> unlocked = new AtomicReference<>();
        threads.start("thread-holder", () -> {
            DistributedLock lock = a.getLock(threadLock);
            lock.lock();
            locked.countDown();
            try {
                unlock.await();
                lock.unlock();
            } catch (Throwable t) {
                unlocked.set(t);
            }
        });
        assertThat(locked.await(5, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + held.remainingLease().toNanos();

        long deletedAt = System.nanoTime();
        assertThat(redis.command("DEL", Faults.lockKey(handleLock), Faults.lockKey(threadLock)))
                .isEqualTo(2L);

        LockLostException loss = held.lost().toCompletableFuture().get(LEASE.toMillis(), TimeUnit.MILLISECONDS);
        long toldAfter = Faults.millisSince(deletedAt);
        assertThat(held.isValid()).isFalse();
        // Told by a renewal (every lease/3), not by the lease running out: the loss says which. How
        // soon after the deletion depends on when the next tick runs, which a loaded machine delays.
        assertThat(loss.getMessage())
                .as("told by a renewal, %d ms after the key went", toldAfter)
                .contains("renewal found the lock no longer held");
        assertThat(heardAt.get(handleLock))
                .as("before the deadline the client computed")
                .isLessThan(deadline);
        org.awaitility.Awaitility.await().atMost(LEASE).until(() -> heardAt.containsKey(threadLock));
        assertThatThrownBy(held::release).isInstanceOf(LockLostException.class);
        unlock.countDown();
        assertThat(threads.join(Duration.ofSeconds(5))).isTrue();
        assertThat(unlocked.get()).isInstanceOf(LockLostException.class);

        try (LockHandle next = client().acquire(handleLock, LockOptions.noWait())) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        System.out.printf("deleted by hand: holder told %d ms after the DEL%n", toldAfter);
    }

    @Test
    @DisplayName("a lock key evicted under maxmemory (volatile-ttl): the holder is told at its next renewal")
    void evictedKeyIsReportedAtTheNextRenewal() throws Exception {
        RedisServer redis = REDIS.server();
        DistributedLockFactory a = client();
        String name = Faults.name("evicted");
        LockHandle held = a.acquire(name, LockOptions.noWait());
        long evictedBefore = evictedKeys(redis);

        AtomicLong evictedAt = new AtomicLong();
        int junk = 0;
        try (RedisClient jedis = RedisClient.create(redis.host(), redis.port())) {
            String value = "x".repeat(1024);
            while (jedis.exists(Faults.lockKey(name))) {
                assertThat(junk)
                        .as("junk written without evicting the lock key")
                        .isLessThan(50_000);
                try (AbstractPipeline p = jedis.pipelined()) {
                    for (int i = 0; i < 100; i++, junk++) {
                        p.set("junk:" + junk, value, SetParams.setParams().px(600_000));
                    }
                }
            }
            evictedAt.set(System.nanoTime());
        }
        LockLostException loss = held.lost().toCompletableFuture().get(LEASE.toMillis(), TimeUnit.MILLISECONDS);
        long toldAfter = Faults.millisSince(evictedAt.get());
        assertThat(loss.lockName()).isEqualTo(name);
        assertThat(held.isValid()).isFalse();
        // Told by a renewal (every lease/3), not by the lease running out: the loss says which. How
        // soon after the deletion depends on when the next tick runs, which a loaded machine delays.
        assertThat(loss.getMessage())
                .as("told by a renewal, %d ms after the key went", toldAfter)
                .contains("renewal found the lock no longer held");
        assertThat(evictedKeys(redis)).isGreaterThan(evictedBefore);
        assertThatThrownBy(held::release).isInstanceOf(LockLostException.class);

        redis.command("FLUSHALL"); // room for the next holder
        try (LockHandle next = client().acquire(name, LockOptions.noWait())) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        System.out.printf(
                "evicted: %d KiB of volatile junk evicted the lock key; holder told %d ms later%n", junk, toldAfter);
    }

    private static long evictedKeys(RedisServer redis) {
        String stats = (String) redis.command("INFO", "stats");
        return stats.lines()
                .filter(l -> l.startsWith("evicted_keys:"))
                .mapToLong(l ->
                        Long.parseLong(l.substring("evicted_keys:".length()).trim()))
                .findFirst()
                .orElse(0);
    }
}
