package io.lockkit.testkit;

import static io.lockkit.testkit.Contention.assertNoOverlap;
import static io.lockkit.testkit.Contention.assertTokensIncrease;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockObserver;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.testkit.Contention.Counter;
import io.lockkit.testkit.Contention.Interval;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Asynchronous acquisition" ({@link LockContractTest.Async}): {@link DistributedLockFactory#acquireAsync}
 * over the backend: excludes blocking holders and is excluded by them, is woken by a release,
 * honours its wait, leaves nothing behind when cancelled, and keeps no thread while it waits, so
 * the provider's calls must not wait for a busy lock either.
 */
abstract class AsyncContract extends ContractGroup {

    AsyncContract(LockContractTest kit) {
        super(kit);
    }

    /** A client with the kit's watchdog lease over a new provider that counts its waiting acquisitions. */
    private DistributedLockFactory waitingClient(Duration watchdogLease, AtomicInteger waiting) {
        return closeAfterTest(DistributedLockFactory.builder(provider())
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease).build())
                .subscriptionLinger(Duration.ZERO)
                .observer(new LockObserver() {
                    @Override
                    public void waitingChanged(String name, int now) {
                        waiting.set(now);
                    }
                })
                .build());
    }

    /** The stage's value, failing when it has not completed within {@code bound} (scaled). */
    private <T> T within(Duration bound, CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(scaled(bound).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the stage had not completed after " + scaled(bound), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    @Test
    @DisplayName("async and blocking acquirers on 3 clients lose no update, and no two holds overlap")
    void asyncAndBlockingAcquirersExcludeEachOther() throws Exception {
        String name = name();
        Counter counter = new Counter();
        List<Interval> intervals = Collections.synchronizedList(new ArrayList<>());
        boolean tokens = has(Capability.FENCING_TOKENS);
        List<Runnable> blocking = new ArrayList<>();
        List<CompletableFuture<Void>> async = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            DistributedLockFactory client = client();
            for (int i = 0; i < 10; i++) {
                async.add(client.acquireAsync(name, waitFor(Duration.ofSeconds(60)))
                        .thenAccept(h -> {
                            try (h) {
                                long start = System.nanoTime();
                                counter.increment();
                                intervals.add(new Interval(start, System.nanoTime(), tokens ? h.fencingToken() : 0));
                            }
                        })
                        .toCompletableFuture());
            }
            blocking.add(() -> {
                for (int i = 0; i < 10; i++) {
                    try (LockHandle h = client.acquire(name, waitFor(Duration.ofSeconds(60)))) {
                        long start = System.nanoTime();
                        counter.increment();
                        intervals.add(new Interval(start, System.nanoTime(), tokens ? h.fencingToken() : 0));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
        }
        runAll(blocking, Duration.ofSeconds(90));
        within(Duration.ofSeconds(90), CompletableFuture.allOf(async.toArray(CompletableFuture[]::new)));
        assertThat(counter.get()).isEqualTo(3 * 10 + 3 * 10);
        assertNoOverlap(intervals);
        if (tokens) {
            assertTokensIncrease(intervals);
        }
    }

    @Test
    @DisplayName("a release wakes an async waiter of another client long before its retry hint")
    void aReleaseWakesAnAsyncWaiter() throws Exception {
        String name = name();
        Duration longLease = scaled(Duration.ofSeconds(30)); // the waiter's retry hint: only a wake-up is sooner
        LockHandle held = client(longLease, e -> {}).acquire(name, LockOptions.noWait());
        AtomicInteger waiting = new AtomicInteger();
        CompletionStage<LockHandle> next =
                waitingClient(watchdogLease(), waiting).acquireAsync(name, waitFor(Duration.ofSeconds(60)));
        await("the async acquisition found the lock busy and waits")
                .atMost(scaled(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> waiting.get() == 1);
        assertThat(next.toCompletableFuture())
                .as("waits while the lock is held")
                .isNotDone();
        held.release();
        LockHandle taken = within(Duration.ofSeconds(5), next);
        assertThat(taken.isValid()).isTrue();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        }
        taken.release();
    }

    @Test
    @DisplayName("an async wait that runs out fails with LockNotAcquiredException, and tryAcquireAsync is empty")
    void anAsyncWaitRunsOut() throws Exception {
        String name = name();
        LockHandle held = client().acquire(name, LockOptions.noWait());
        DistributedLockFactory other = client();
        long start = System.nanoTime();
        assertThatThrownBy(
                        () -> within(Duration.ofSeconds(10), other.acquireAsync(name, waitFor(Duration.ofMillis(300)))))
                .isInstanceOf(LockNotAcquiredException.class);
        assertThat(millisSince(start)).as("waited its time").isGreaterThanOrEqualTo(300);
        assertThat(within(Duration.ofSeconds(10), other.tryAcquireAsync(name, waitFor(Duration.ofMillis(200)))))
                .isEmpty();
        assertThat(within(Duration.ofSeconds(10), other.tryAcquireAsync(name, LockOptions.noWait())))
                .isEmpty();
        held.release();
        LockHandle taken = within(Duration.ofSeconds(10), other.acquireAsync(name, LockOptions.noWait()));
        taken.release();
    }

    @Test
    @DisplayName("a cancelled async wait takes nothing: after the holder's release a third client gets the lock")
    void aCancelledAsyncWaitLeavesNoHold() throws Exception {
        String name = name();
        LockHandle held = client().acquire(name, LockOptions.noWait());
        AtomicInteger waiting = new AtomicInteger();
        CompletableFuture<LockHandle> pending = waitingClient(watchdogLease(), waiting)
                .acquireAsync(name, waitFor(Duration.ofSeconds(60)))
                .toCompletableFuture();
        await("the async acquisition waits")
                .atMost(scaled(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> waiting.get() == 1);
        assertThat(pending.cancel(false)).isTrue();
        await("the cancelled wait ended")
                .atMost(scaled(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> waiting.get() == 0);
        held.release();
        // Well within any backend's claim timeout for a hand-over nobody takes.
        freeForOtherWithin(client(), name, Duration.ofSeconds(1), System.nanoTime(), "the lock is free for others");
    }

    @Test
    @DisplayName(
            "100 async waits for held locks keep no thread: a free lock is taken beside them within 5 s (not the seconds their attempts would hold threads for)")
    void asyncWaitsKeepNoThread() throws Exception {
        DistributedLockFactory holder = client();
        DistributedLockFactory waiter = client();
        List<LockHandle> held = new ArrayList<>();
        List<CompletableFuture<LockHandle>> waits = new ArrayList<>();
        AtomicInteger waiting = new AtomicInteger();
        DistributedLockFactory counted = waitingClient(watchdogLease(), waiting);
        String base = name() + ":";
        for (int i = 0; i < 100; i++) {
            held.add(holder.acquire(base + i, LockOptions.noWait()));
        }
        for (int i = 0; i < 100; i++) {
            waits.add(counted.acquireAsync(base + i, waitFor(Duration.ofSeconds(60)))
                    .toCompletableFuture());
        }
        // A provider whose calls wait (for the lock, or a moment before trying again) holds one of
        // the factory's few threads per attempt: 100 attempts of 200 ms on two threads take 10 s.
        LockHandle free = within(Duration.ofSeconds(5), counted.acquireAsync(name(), waitFor(Duration.ofSeconds(60))));
        free.release();
        assertThat(waits).noneMatch(CompletableFuture::isDone);
        held.forEach(LockHandle::release);
        for (CompletableFuture<LockHandle> w : waits) {
            within(Duration.ofSeconds(30), w).release();
        }
        LockHandle again = within(Duration.ofSeconds(5), waiter.acquireAsync(name(), LockOptions.noWait()));
        again.release();
    }

    @Test
    @DisplayName(
            "a busy answer comes back in about one round trip, with or without a wait: no call waits for the lock, however briefly")
    void aBusyAnswerComesBackInAboutOneRoundTrip() {
        LockProvider holding = closeAfterTest(provider());
        LockProvider asking = closeAfterTest(provider());
        Duration lease = scaled(Duration.ofSeconds(20)); // a long retry hint: a provider may not wait it out
        String name = name();
        assertThat(holding.tryAcquire(new LockRequest(name, RenewalContract.newClient() + ":h1", lease, Duration.ZERO))
                        .isAcquired())
                .isTrue();
        String owner = RenewalContract.newClient() + ":h1";
        int samples = 11;
        long[] free = new long[samples];
        long[] busy = new long[samples];
        long[] busyWaiting = new long[samples];
        for (int i = 0; i < samples; i++) { // interleaved, so that load on the machine falls on all three alike
            String other = name + ":free:" + i;
            long start = System.nanoTime();
            assertThat(asking.tryAcquire(new LockRequest(other, owner, lease, Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            free[i] = System.nanoTime() - start;
            asking.release(other, owner);
            start = System.nanoTime();
            assertThat(asking.tryAcquire(new LockRequest(name, owner, lease, Duration.ZERO))
                            .isAcquired())
                    .isFalse();
            busy[i] = System.nanoTime() - start;
            start = System.nanoTime();
            assertThat(asking.tryAcquire(new LockRequest(name, owner, lease, lease, 1))
                            .isAcquired())
                    .isFalse();
            busyWaiting[i] = System.nanoTime() - start;
        }
        asking.abandon(name, owner, 1);
        // Three times a free lock's round trip, and 50 ms of room for a loaded machine: a 200 ms pause is well past it.
        Duration bound = Duration.ofNanos(3 * median(free)).plus(scaled(Duration.ofMillis(50)));
        assertThat(Duration.ofNanos(median(busy)))
                .as("median busy answer without a wait (a free lock's median %s)", Duration.ofNanos(median(free)))
                .isLessThan(bound);
        assertThat(Duration.ofNanos(median(busyWaiting)))
                .as("median busy answer to a waiting request (a free lock's median %s)", Duration.ofNanos(median(free)))
                .isLessThan(bound);
    }

    private static long median(long[] samples) {
        long[] sorted = samples.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
