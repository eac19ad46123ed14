package io.lockkit.testkit;

import static io.lockkit.testkit.Contention.assertNoOverlap;
import static io.lockkit.testkit.Contention.assertTokensIncrease;
import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.testkit.Contention.Counter;
import io.lockkit.testkit.Contention.Interval;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Mutual exclusion under contention" ({@link LockContractTest.MutualExclusion}): at most one
 * holder at a time, across threads, handles and clients.
 */
abstract class MutualExclusionContract extends ContractGroup {

    MutualExclusionContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("the shared counter loses updates when nobody locks, so the next tests can fail")
    void counterLosesUpdatesWithoutALock() throws Exception {
        Counter counter = new Counter();
        List<Runnable> tasks = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            tasks.add(() -> {
                for (int i = 0; i < 20; i++) {
                    counter.increment();
                }
            });
        }
        runAll(tasks, Duration.ofSeconds(30));
        assertThat(counter.get()).isLessThan(160);
    }

    @Test
    @DisplayName("9 threads on 3 clients lose no update, and no two holds overlap")
    void threadsOnSeveralClientsLoseNoUpdate() throws Exception {
        String name = name();
        Counter counter = new Counter();
        List<Interval> intervals = Collections.synchronizedList(new ArrayList<>());
        List<Runnable> tasks = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            DistributedLock lock = client().getLock(name);
            for (int t = 0; t < 3; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < 15; i++) {
                        lock.lock();
                        try {
                            long start = System.nanoTime();
                            long token = has(Capability.FENCING_TOKENS) ? lock.fencingToken() : 0;
                            counter.increment();
                            intervals.add(new Interval(start, System.nanoTime(), token));
                        } finally {
                            lock.unlock();
                        }
                    }
                });
            }
        }
        runAll(tasks, Duration.ofSeconds(60));
        assertThat(counter.get()).isEqualTo(9 * 15);
        assertNoOverlap(intervals);
        if (has(Capability.FENCING_TOKENS)) {
            assertTokensIncrease(intervals);
        }
    }

    @Test
    @DisplayName("8 handle owners on 4 clients lose no update, and no two holds overlap")
    void handlesOnSeveralClientsLoseNoUpdate() throws Exception {
        String name = name();
        Counter counter = new Counter();
        List<Interval> intervals = Collections.synchronizedList(new ArrayList<>());
        List<Runnable> tasks = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            DistributedLockFactory client = client();
            for (int t = 0; t < 2; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < 15; i++) {
                        try (LockHandle h = client.acquire(name, waitFor(Duration.ofSeconds(30)))) {
                            long start = System.nanoTime();
                            counter.increment();
                            intervals.add(new Interval(
                                    start, System.nanoTime(), has(Capability.FENCING_TOKENS) ? h.fencingToken() : 0));
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                });
            }
        }
        runAll(tasks, Duration.ofSeconds(60));
        assertThat(counter.get()).isEqualTo(8 * 15);
        assertNoOverlap(intervals);
        if (has(Capability.FENCING_TOKENS)) {
            assertTokensIncrease(intervals);
        }
    }

    @Test
    @DisplayName("of 8 simultaneous tryLock calls on 4 clients exactly one wins")
    void exactlyOneSimultaneousTryLockWins() throws Exception {
        String name = name();
        AtomicInteger winners = new AtomicInteger();
        CountDownLatch tried = new CountDownLatch(8);
        List<Runnable> tasks = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            DistributedLock lock = client().getLock(name);
            for (int t = 0; t < 2; t++) {
                tasks.add(() -> {
                    boolean won = lock.tryLock();
                    tried.countDown();
                    if (won) {
                        winners.incrementAndGet();
                        try {
                            tried.await(); // hold until every contender has tried
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            lock.unlock();
                        }
                    }
                });
            }
        }
        runAll(tasks, Duration.ofSeconds(30));
        assertThat(winners).hasValue(1);
    }

    @Test
    @DisplayName("a lock held by one client is busy for every other client")
    void aHeldLockIsBusyForOtherClients() throws Exception {
        String name = name();
        DistributedLock a = client().getLock(name);
        a.lock();
        for (int c = 0; c < 3; c++) {
            DistributedLock other = client().getLock(name);
            assertThat(returnsWithin(Duration.ofSeconds(3), () -> other.tryLock(scaled(Duration.ofMillis(100)), null)))
                    .isFalse();
        }
        a.unlock();
        assertThat(client().getLock(name).tryLock()).isTrue();
    }
}
