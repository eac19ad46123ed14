package io.lockkit.jedis.fault;

import static io.lockkit.jedis.fault.Faults.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.support.Closer;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 1: Redis restarts ({@code SHUTDOWN NOSAVE}, started again: every lock is gone) while
 * clients hold locks and others wait for them. Every holder is told; tokens issued after the
 * restart are greater than those before; the waiters, parked on a pub/sub connection that broke,
 * get the locks in turn.
 */
@Tag("fault")
@DisplayName("Fault: Redis restarted during holds")
class RedisRestartFaultTest {

    private static final int WAITERS_PER_LOCK = 4;

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
    @DisplayName("every holder is told, tokens after the restart are greater, and the waiters recover and acquire")
    void restartDuringHoldsIsReportedAndWaitersRecover() throws Exception {
        RedisServer redis = REDIS.server();
        Map<String, LockLostException> heard = new ConcurrentHashMap<>();
        DistributedLockFactory holders = closer.add(
                Faults.factory(Faults.provider(redis.uri()).build(), LEASE, e -> heard.put(e.lockName(), e)));
        // The waiters park until a release or the holder's remaining lease (at least a second here),
        // so the wake-up right after the restart comes from the pub/sub connection's resubscription
        // (which tells every waiter to look again), not from a timer.
        DistributedLockFactory waiters =
                closer.add(Faults.factory(Faults.provider(redis.uri()).build(), LEASE, e -> {}));
        String handleLock = Faults.name("restart-handle");
        String threadLock = Faults.name("restart-thread");
        String leaseLock = Faults.name("restart-lease");

        LockHandle handle = holders.acquire(handleLock, LockOptions.noWait());
        LockHandle leased = holders.acquire(
                leaseLock,
                LockOptions.builder().noWait().lease(Duration.ofSeconds(10)).build());
        CountDownLatch threadHolds = new CountDownLatch(1);
        CountDownLatch threadMayUnlock = new CountDownLatch(1);
        AtomicLong threadToken = new AtomicLong();
        AtomicReference<Throwable> threadUnlock = new AtomicReference<>();
        threads.start("thread-holder", () -> {
            DistributedLock lock = holders.getLock(threadLock);
            lock.lock();
            threadToken.set(lock.fencingToken());
            threadHolds.countDown();
            try {
                threadMayUnlock.await();
                lock.unlock();
            } catch (Throwable t) {
                threadUnlock.set(t);
            }
        });
        assertThat(threadHolds.await(5, TimeUnit.SECONDS)).isTrue();
        Map<String, Long> before = Map.of(handleLock, handle.fencingToken(), threadLock, threadToken.get());

        List<long[]> acquired = new CopyOnWriteArrayList<>(); // {lock index, token}
        List<Throwable> waiterFailures = new CopyOnWriteArrayList<>();
        List<String> waited = List.of(handleLock, threadLock);
        for (int l = 0; l < waited.size(); l++) {
            int index = l;
            for (int i = 0; i < WAITERS_PER_LOCK; i++) {
                threads.start("waiter-" + l + "-" + i, () -> {
                    try {
                        DistributedLock lock = waiters.getLock(waited.get(index));
                        lock.lock();
                        acquired.add(new long[] {index, lock.fencingToken()});
                        lock.unlock();
                    } catch (Throwable t) {
                        waiterFailures.add(t);
                    }
                });
            }
        }
        for (String name : waited) {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> (Long) redis.command("ZCARD", Faults.lockKey(name) + ":q") == WAITERS_PER_LOCK);
        }
        Thread.sleep(100);

        long restartAt = System.nanoTime();
        redis.restart();
        long upAt = System.nanoTime();

        // Watchdog holds: told at the next renewal, well before their deadline.
        LockLostException handleLoss = handle.lost().toCompletableFuture().get(LEASE.toMillis(), TimeUnit.MILLISECONDS);
        long toldAfter = Faults.millisSince(upAt);
        assertThat(handleLoss.lockName()).isEqualTo(handleLock);
        assertThat(handle.isValid()).isFalse();
        await().atMost(LEASE).until(() -> heard.containsKey(threadLock));
        assertThat(heard).containsKeys(handleLock, threadLock);
        assertThatThrownBy(handle::release).isInstanceOf(LockLostException.class);
        threadMayUnlock.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> threadUnlock.get() != null);
        assertThat(threadUnlock.get()).isInstanceOf(LockLostException.class);
        // An explicit lease is not renewed, so nothing asks Redis about it before its release.
        assertThatThrownBy(leased::release).isInstanceOf(LockLostException.class);
        assertThat(heard).containsKey(leaseLock);

        assertThat(threads.join(Duration.ofSeconds(15)))
                .as("every waiter is done")
                .isTrue();
        System.out.printf(
                "restart: Redis down for %d ms; holders told %d ms after it was up; %d waiters acquired, %d failed %s%n",
                TimeUnit.NANOSECONDS.toMillis(upAt - restartAt),
                toldAfter,
                acquired.size(),
                waiterFailures.size(),
                waiterFailures);
        assertThat(waiterFailures).isEmpty();
        assertThat(acquired).hasSize(WAITERS_PER_LOCK * waited.size());
        for (long[] a : acquired) {
            String name = waited.get((int) a[0]);
            assertThat(a[1]).as("token of %s after the restart", name).isGreaterThan(before.get(name));
        }
        List<Long> tokens = new ArrayList<>();
        acquired.stream().filter(a -> a[0] == 0).forEach(a -> tokens.add(a[1]));
        assertThat(tokens)
                .as("tokens of one lock increase in order of acquisition")
                .isSorted()
                .doesNotHaveDuplicates();
    }
}
