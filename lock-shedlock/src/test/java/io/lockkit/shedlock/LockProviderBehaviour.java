package io.lockkit.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's provider contract, written from its documentation (its own
 * {@code shedlock-test-support} artifact does not resolve here), on a real backend. Each provider
 * has its own factory and connections: it plays one application instance.
 */
abstract class LockProviderBehaviour {

    private final List<DistributedLockFactory> factories = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final String name = "job-" + UUID.randomUUID();

    /** A new factory with a provider and connections of its own: another instance. */
    abstract DistributedLockFactory newFactory();

    LockkitLockProvider newProvider() {
        DistributedLockFactory factory = newFactory();
        factories.add(factory);
        return new LockkitLockProvider(factory, "shedlock-test:");
    }

    static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    /** Waits until {@code provider} gets the name (by the backend's own expiry), and unlocks it again. */
    private void awaitFreeFor(LockkitLockProvider provider) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    Optional<SimpleLock> next = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
                    next.ifPresent(SimpleLock::unlock);
                    return next.isPresent();
                });
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        factories.forEach(DistributedLockFactory::close);
    }

    @Test
    @DisplayName(
            "a free name is locked once: a second attempt, from this instance or another, is empty while it is held")
    void lockedOnceAndRefusedWhileHeld() {
        LockkitLockProvider one = newProvider();
        LockkitLockProvider two = newProvider();
        LockConfiguration config = config(name, Duration.ofSeconds(30), Duration.ZERO);
        Optional<SimpleLock> lock = one.lock(config);
        assertThat(lock).isPresent();
        assertThat(one.lock(config)).as("same instance, same thread").isEmpty();
        assertThat(two.lock(config)).as("another instance").isEmpty();
        Optional<SimpleLock> other = two.lock(config(name + "-other", Duration.ofSeconds(30), Duration.ZERO));
        assertThat(other).as("another name is independent").isPresent();
        other.orElseThrow().unlock();
        lock.orElseThrow().unlock();
    }

    @Test
    @DisplayName("unlock() without lockAtLeastFor frees the name at once; the lock is spent after it")
    void unlockFreesAtOnce() {
        LockkitLockProvider one = newProvider();
        LockkitLockProvider two = newProvider();
        SimpleLock lock =
                one.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        lock.unlock();
        Optional<SimpleLock> next = two.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
        assertThat(next).isPresent();
        next.orElseThrow().unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("unlock() before lockAtLeastFor has passed keeps the name locked until it has, then frees it")
    void lockAtLeastForKeepsItAfterUnlock() {
        LockkitLockProvider one = newProvider();
        LockkitLockProvider two = newProvider();
        Duration atLeast = Duration.ofMillis(800);
        long start = System.nanoTime();
        one.lock(config(name, Duration.ofSeconds(30), atLeast)).orElseThrow().unlock();
        assertThat(two.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)))
                .as("still locked right after unlock")
                .isEmpty();
        awaitFreeFor(two);
        long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // The rest of atLeast was counted from after the lock was taken, and the backend's lease ran from
        // after the unlock left: it cannot end before atLeast has passed here (but for whole-ms rounding).
        assertThat(heldMillis).isGreaterThanOrEqualTo(atLeast.toMillis() - 2);
    }

    @Test
    @DisplayName(
            "an abandoned lock (never unlocked, as after a crash) frees itself after lockAtMostFor; its late unlock reports the loss")
    void lockAtMostForFreesAnAbandonedLock() {
        LockkitLockProvider one = newProvider();
        LockkitLockProvider two = newProvider();
        SimpleLock abandoned =
                one.lock(config(name, Duration.ofMillis(500), Duration.ZERO)).orElseThrow();
        awaitFreeFor(two);
        assertThatThrownBy(abandoned::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    @DisplayName(
            "extend() keeps the name past the first lockAtMostFor and spends the old lock; a lost lock cannot be extended")
    void extendKeepsItAndLostLocksCannotBeExtended() throws InterruptedException {
        LockkitLockProvider one = newProvider();
        LockkitLockProvider two = newProvider();
        SimpleLock first =
                one.lock(config(name, Duration.ofMillis(400), Duration.ZERO)).orElseThrow();
        SimpleLock extended =
                first.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThatThrownBy(first::unlock).as("spent by extend").isInstanceOf(IllegalStateException.class);
        Thread.sleep(800); // past the first lockAtMostFor: the backend's own expiry is what is checked
        assertThat(two.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)))
                .isEmpty();
        extended.unlock();

        SimpleLock shortLived =
                one.lock(config(name, Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
        awaitFreeFor(two);
        assertThat(shortLived.extend(Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
    }

    @Test
    @DisplayName(
            "jobs of three instances (two threads each) run one at a time under LockingTaskExecutor: no overlap, no lost update")
    void jobsOfSeveralInstancesNeverOverlap() throws Exception {
        int[] counter = {0}; // read and written without synchronization: only the lock orders the jobs
        AtomicInteger executed = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(newProvider());
            for (int t = 0; t < 2; t++) {
                workers.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 20; i++) {
                        executor.executeWithLock(
                                (Runnable) () -> {
                                    if (inside.incrementAndGet() > 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    int read = counter[0];
                                    Thread.yield(); // widens the window a missing lock would leave open
                                    counter[0] = read + 1;
                                    executed.incrementAndGet();
                                    inside.decrementAndGet();
                                },
                                config(name, Duration.ofSeconds(30), Duration.ZERO));
                    }
                    return null;
                }));
            }
        }
        start.countDown();
        for (Future<?> w : workers) {
            w.get(120, TimeUnit.SECONDS);
        }
        assertThat(executed.get()).isPositive();
        assertThat(counter[0])
                .as("Future.get orders the jobs' writes before this read")
                .isEqualTo(executed.get());
        assertThat(overlaps).hasValue(0);
    }

    @Test
    @DisplayName(
            "a job reaches its hold through CurrentShedLock: a greater token each run, the innermost of nested jobs, none outside")
    void jobsReachTheirFencingToken() throws Throwable {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(newProvider());
        List<Long> tokens = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            executor.executeWithLock(
                    (Runnable) () ->
                            tokens.add(CurrentShedLock.handle().orElseThrow().fencingToken()),
                    config(name, Duration.ofSeconds(30), Duration.ZERO));
        }
        assertThat(tokens).hasSize(2);
        assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
        executor.executeWithLock(
                (Runnable) () -> {
                    LockHandle outer = CurrentShedLock.handle().orElseThrow();
                    executor.executeWithLock(
                            (Runnable) () -> assertThat(CurrentShedLock.handle()
                                            .orElseThrow()
                                            .name())
                                    .endsWith(name + "-inner"),
                            config(name + "-inner", Duration.ofSeconds(30), Duration.ZERO));
                    assertThat(CurrentShedLock.handle()).containsSame(outer);
                    // ShedLock's LockExtender reaches the lock through the provider's extend
                    LockExtender.extendActiveLock(Duration.ofSeconds(60), Duration.ZERO);
                    assertThat(outer.remainingLease()).isGreaterThan(Duration.ofSeconds(30));
                },
                config(name, Duration.ofSeconds(30), Duration.ZERO));
        assertThat(CurrentShedLock.handle()).isEmpty();
    }
}
