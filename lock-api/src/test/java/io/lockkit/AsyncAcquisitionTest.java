package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DistributedLockFactory#acquireAsync}: waits that park no thread, over the in-JVM provider
 * on the real clock. The wait protocol itself is {@link Wait}'s, tested step by step in
 * {@link WaitProtocolTest}; here, what is particular to running it on an executor.
 */
class AsyncAcquisitionTest {

    private static final Duration LONG = Duration.ofSeconds(60);

    private final LocalLockProvider backend = new LocalLockProvider();
    private final List<DistributedLockFactory> factories = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeFactories() {
        factories.forEach(DistributedLockFactory::close);
    }

    private DistributedLockFactory factory(LockProvider provider, LockObserver... observers) {
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(provider);
        for (LockObserver o : observers) {
            b.observer(o);
        }
        DistributedLockFactory f = b.build();
        factories.add(f);
        return f;
    }

    private DistributedLockFactory factory(LockObserver... observers) {
        return factory(backend.newClient(), observers);
    }

    /** Counts the waits of a factory that found the lock busy and wait now. */
    private static final class Waiting implements LockObserver {
        final AtomicInteger now = new AtomicInteger();

        @Override
        public void waitingChanged(String name, int waiting) {
            now.set(waiting);
        }
    }

    private static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    @Test
    void thousandAsyncWaitersTakeTheLockInTurnOnTheFactorysTwoThreads() throws Exception {
        Waiting waiting = new Waiting();
        DistributedLockFactory locks = factory(waiting);
        String name = "async:many";
        LockHandle first = locks.acquire(name, LockOptions.noWait());
        int threadsBefore = liveThreads();
        int waiters = 1000;
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<String> threadNames = new CopyOnWriteArrayList<>();
        AtomicInteger peakThreads = new AtomicInteger();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int index = i;
            done.add(locks.acquireAsync(name, LockOptions.waitAtMost(LONG))
                    .thenAccept(hold -> {
                        order.add(index);
                        threadNames.add(Thread.currentThread().getName());
                        peakThreads.accumulateAndGet(liveThreads(), Math::max);
                        hold.release(); // hands over to the next waiter
                    })
                    .toCompletableFuture());
        }
        await("every waiter found the lock busy and waits")
                .atMost(Duration.ofSeconds(30))
                .until(() -> waiting.now.get() == waiters);
        peakThreads.accumulateAndGet(liveThreads(), Math::max);
        first.release();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(order).as("granted in the order they asked").isSorted().hasSize(waiters);
        assertThat(threadNames)
                .as("completed on the factory's async threads")
                .allMatch(n -> n.startsWith("lockkit-async-"));
        assertThat(peakThreads.get() - threadsBefore)
                .as("threads added while 1,000 waited (one per waiter would be 1,000)")
                .isLessThanOrEqualTo(EngineThreads.ASYNC_THREADS + 2);
        assertThat(locks.tryAcquire(name))
                .as("free after the last one")
                .isPresent()
                .get()
                .satisfies(LockHandle::release);
    }

    /** The provider calls of one acquisition of a free lock, and of one that waits for a release. */
    private String callsOf(boolean async) throws Exception {
        WaitProtocolTest.Recording counting = new WaitProtocolTest.Recording(backend.newClient());
        Waiting waiting = new Waiting();
        DistributedLockFactory locks = factory(counting, waiting);
        String name = "async:calls:" + async;
        (async ? join(locks.acquireAsync(name)) : locks.acquire(name)).release();
        String free = calls(counting);
        LockHandle held = factory().acquire(name, LockOptions.noWait());
        CompletableFuture<LockHandle> next = async
                ? locks.acquireAsync(name, LockOptions.waitAtMost(LONG)).toCompletableFuture()
                : CompletableFuture.supplyAsync(() -> {
                    try {
                        return locks.acquire(name, LockOptions.waitAtMost(LONG));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.now.get() == 1);
        held.release();
        join(next).release();
        return "free: " + free + "; after a wait: " + calls(counting);
    }

    private static String calls(WaitProtocolTest.Recording r) {
        return r.requests.size() + " attempts, " + r.subscriptions + " subscriptions, " + r.abandoned.size()
                + " abandons";
    }

    @Test
    void anAsyncAcquisitionMakesTheProviderCallsABlockingOneMakes() throws Exception {
        String blocking = callsOf(false);
        String async = callsOf(true);
        // Both: "free: 1 attempts, 0 subscriptions, 0 abandons; after a wait: 4 attempts, 1 subscriptions,
        // 0 abandons" (the wait: busy, subscribe, busy again, woken, granted).
        assertThat(async)
                .as("acquireAsync's provider calls, as the blocking acquire's")
                .isEqualTo(blocking);
    }

    @Test
    void theStageCompletesOnALockkitThreadNeverTheCallers() throws Exception {
        DistributedLockFactory locks = factory();
        AtomicReference<@Nullable Thread> completing = new AtomicReference<>();
        // Busy first, so that the stage is still pending when the dependent action is attached (a
        // stage already complete runs it on the attaching thread).
        LockHandle busy = factory().acquire("async:thread", LockOptions.noWait());
        CompletableFuture<LockHandle> granted = locks.acquireAsync("async:thread", LockOptions.waitAtMost(LONG))
                .thenApply(h -> {
                    completing.set(Thread.currentThread());
                    return h;
                })
                .toCompletableFuture();
        assertThat(granted).as("waiting for the busy lock").isNotDone();
        busy.release();
        join(granted).release();
        assertThat(completing.get()).isNotSameAs(Thread.currentThread());
        assertThat(completing.get().getName()).startsWith("lockkit-async-");
    }

    @Test
    void aGivenExecutorCallsTheProviderAndCompletesTheStage() throws Exception {
        ExecutorService mine = Executors.newSingleThreadExecutor(r -> new Thread(r, "mine"));
        try {
            List<String> callers = new CopyOnWriteArrayList<>();
            LockProvider watched = new ForwardingLockProvider(backend.newClient()) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    callers.add(Thread.currentThread().getName());
                    return super.tryAcquire(request);
                }
            };
            DistributedLockFactory locks =
                    DistributedLockFactory.builder(watched).asyncExecutor(mine).build();
            factories.add(locks);
            LockHandle hold = join(locks.acquireAsync("async:mine", LockOptions.waitAtMost(LONG)));
            hold.release();
            assertThat(callers).containsOnly("mine");
        } finally {
            mine.shutdownNow();
        }
    }

    @Test
    void aGivenThreadFactoryMakesTheAsyncThreadsOnASchedulerThreadNeverOnTheCallers() throws Exception {
        List<String> makers = new CopyOnWriteArrayList<>();
        AtomicInteger made = new AtomicInteger();
        java.util.concurrent.ThreadFactory managed = r -> {
            makers.add(Thread.currentThread().getName());
            Thread t = new Thread(r, "managed-" + made.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        DistributedLockFactory locks = DistributedLockFactory.builder(backend.newClient())
                .threadFactory(managed)
                .build();
        factories.add(locks);
        assertThat(made.get()).as("the scheduler's threads, made at build").isEqualTo(2);
        AtomicReference<@Nullable String> completing = new AtomicReference<>();
        // Busy first, so that the stage is still pending when the dependent action is attached (a
        // stage already complete runs it on the attaching thread).
        LockHandle busy = factory().acquire("async:managed", LockOptions.noWait());
        CompletableFuture<LockHandle> granted = locks.acquireAsync("async:managed", LockOptions.waitAtMost(LONG))
                .thenApply(h -> {
                    completing.set(Thread.currentThread().getName());
                    return h;
                })
                .toCompletableFuture();
        assertThat(granted).as("waiting for the busy lock").isNotDone();
        busy.release();
        join(granted).release();
        assertThat(makers.subList(2, makers.size()))
                .as("async threads made by scheduler threads")
                .isNotEmpty()
                .allMatch(n -> n.startsWith("managed-"));
        assertThat(completing.get()).startsWith("managed-");
    }

    @Test
    void releaseHandsTheLockToAnAsyncWaiterOfAnotherClient() throws Exception {
        Waiting waiting = new Waiting();
        DistributedLockFactory holder = factory();
        DistributedLockFactory asking = factory(waiting);
        LockHandle held = holder.acquire("async:handover", LockOptions.noWait());
        CompletableFuture<LockHandle> next = asking.acquireAsync("async:handover", LockOptions.waitAtMost(LONG))
                .toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.now.get() == 1);
        assertThat(next).isNotDone();
        long before = held.fencingToken();
        held.release();
        LockHandle taken = join(next);
        assertThat(taken.fencingToken()).isGreaterThan(before);
        assertThat(taken.isValid()).isTrue();
        assertThat(taken.lost()).isNotDone();
        taken.release();
        assertThat(taken.isValid()).isFalse();
    }

    @Test
    void aWaitThatRunsOutFailsTheStageAsTheBlockingAcquireThrows() throws Exception {
        DistributedLockFactory locks = factory();
        LockHandle held = factory().acquire("async:timeout", LockOptions.noWait());
        assertThatThrownBy(
                        () -> join(locks.acquireAsync("async:timeout", LockOptions.waitAtMost(Duration.ofMillis(200)))))
                .isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("async:timeout");
        assertThat(join(locks.tryAcquireAsync("async:timeout", LockOptions.waitAtMost(Duration.ofMillis(100)))))
                .isEmpty();
        assertThat(join(locks.tryAcquireAsync("async:timeout", LockOptions.noWait())))
                .isEmpty();
        held.release();
        assertThat(join(locks.tryAcquireAsync("async:timeout", LockOptions.noWait())))
                .isPresent()
                .get()
                .satisfies(LockHandle::release);
        assertThat(((ProviderLockFactory) locks).waitsInFlight()).isZero();
    }

    @Test
    void cancellingAPendingStageAbandonsTheWaitAndTakesNothing() throws Exception {
        Waiting waiting = new Waiting();
        WaitProtocolTest.Recording recording = new WaitProtocolTest.Recording(backend.newClient());
        DistributedLockFactory locks = factory(recording, waiting);
        DistributedLockFactory other = factory();
        LockHandle held = other.acquire("async:cancel", LockOptions.noWait());
        CompletableFuture<LockHandle> pending =
                locks.acquireAsync("async:cancel", LockOptions.waitAtMost(LONG)).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.now.get() == 1);

        assertThat(pending.cancel(false)).isTrue();
        await("the wait left the backend's queue")
                .atMost(Duration.ofSeconds(10))
                .until(() -> !recording.abandoned.isEmpty());
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.now.get() == 0);
        held.release();
        assertThat(other.tryAcquire("async:cancel"))
                .as("nobody took the lock for the cancelled wait")
                .isPresent()
                .get()
                .satisfies(LockHandle::release);
        assertThat(((ProviderLockFactory) locks).waitsInFlight()).isZero();
    }

    @Test
    void aHoldWonWhileTheStageWasCancelledIsReleased() throws Exception {
        CountDownLatch attempting = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        AtomicInteger released = new AtomicInteger();
        LockProvider slowAnswer = new ForwardingLockProvider(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                if (a.isAcquired()) {
                    attempting.countDown();
                    try {
                        cancelled.await(10, TimeUnit.SECONDS); // the answer arrives after the cancel
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return a;
            }

            @Override
            public io.lockkit.spi.Release release(String name, String owner) {
                released.incrementAndGet();
                return super.release(name, owner);
            }
        };
        DistributedLockFactory locks = factory(slowAnswer);
        CompletableFuture<LockHandle> pending =
                locks.acquireAsync("async:race", LockOptions.waitAtMost(LONG)).toCompletableFuture();
        assertThat(attempting.await(10, TimeUnit.SECONDS)).isTrue();
        pending.cancel(false);
        cancelled.countDown();

        await("the hold won for the cancelled stage was released")
                .atMost(Duration.ofSeconds(10))
                .until(() -> released.get() == 1);
        assertThat(factory().tryAcquire("async:race")).isPresent().get().satisfies(LockHandle::release);
        assertThat(pending).isCancelled();
    }

    @Test
    void cancelsRacingGrantsNeverLeaveAHoldBehind() throws Exception {
        DistributedLockFactory locks = factory();
        DistributedLockFactory other = factory();
        ExecutorService racer = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 200; round++) {
                String name = "async:cancel-race:" + round;
                LockHandle held = other.acquire(name, LockOptions.noWait());
                CompletableFuture<LockHandle> pending =
                        locks.acquireAsync(name, LockOptions.waitAtMost(LONG)).toCompletableFuture();
                CountDownLatch go = new CountDownLatch(1);
                var release = racer.submit(() -> {
                    go.await();
                    held.release();
                    return null;
                });
                var cancel = racer.submit(() -> {
                    go.await();
                    return pending.cancel(false);
                });
                go.countDown();
                release.get(10, TimeUnit.SECONDS);
                if (!cancel.get(10, TimeUnit.SECONDS)) {
                    join(pending).release(); // the grant won the race: an ordinary hold
                }
                await("round " + round + ": the lock is free again")
                        .atMost(Duration.ofSeconds(10))
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(2))
                        .until(() -> other.tryAcquire(name)
                                .map(h -> {
                                    h.release();
                                    return true;
                                })
                                .orElse(false));
            }
            assertThat(((ProviderLockFactory) locks).liveHolds()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> ((ProviderLockFactory) locks).waitsInFlight() == 0);
        } finally {
            racer.shutdownNow();
        }
    }

    @Test
    void anUnreachableBackendFailsTheStageWithTheTypedException() throws Exception {
        DistributedLockFactory locks = factory();
        backend.stopBackend();
        try {
            assertThatThrownBy(() -> join(locks.acquireAsync("async:outage", LockOptions.waitAtMost(LONG))))
                    .isInstanceOf(BackendUnavailableException.class);
        } finally {
            backend.startBackend();
        }
        assertThat(join(locks.acquireAsync("async:outage", LockOptions.waitAtMost(LONG))))
                .satisfies(LockHandle::release);
    }

    @Test
    void anOutageDuringTheWaitFailsTheStage() throws Exception {
        Waiting waiting = new Waiting();
        DistributedLockFactory locks = factory(waiting);
        LockHandle held = factory()
                .acquire(
                        "async:outage-later",
                        LockOptions.builder()
                                .noWait()
                                .lease(Duration.ofMillis(300))
                                .build());
        CompletableFuture<LockHandle> pending = locks.acquireAsync("async:outage-later", LockOptions.waitAtMost(LONG))
                .toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.now.get() == 1);
        backend.stopBackend();
        try {
            // The retry hint (the holder's lease) comes due while the backend is down.
            assertThatThrownBy(() -> join(pending)).isInstanceOf(BackendUnavailableException.class);
        } finally {
            backend.startBackend();
        }
        assertThat(held.isValid()).isFalse();
    }

    @Test
    void closingTheFactoryFailsPendingStages() throws Exception {
        Waiting waiting = new Waiting();
        DistributedLockFactory locks = factory(waiting);
        LockHandle held = factory().acquire("async:close", LockOptions.noWait());
        CompletableFuture<LockHandle> pending =
                locks.acquireAsync("async:close", LockOptions.waitAtMost(LONG)).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.now.get() == 1);
        locks.close();
        assertThatThrownBy(() -> join(pending))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> join(locks.acquireAsync("async:close")))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        held.release();
    }

    @Test
    void badInputThrowsAtTheCall() {
        DistributedLockFactory locks = factory();
        assertThatThrownBy(() -> locks.acquireAsync(null, LockOptions.DEFAULTS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> locks.acquireAsync(" ", LockOptions.DEFAULTS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> locks.acquireAsync("async:bad", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options");
        assertThatThrownBy(() -> locks.tryAcquireAsync("async:bad", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options");
        assertThatThrownBy(() -> locks.acquireAsync(
                        "async:bad",
                        LockOptions.builder()
                                .watchdogLease(Duration.ofSeconds(1))
                                .renewalInterval(Duration.ofSeconds(2))
                                .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewalInterval");
        assertThatThrownBy(() -> DistributedLockFactory.builder(backend).asyncExecutor(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("asyncExecutor");
    }

    @Test
    void aStageForAFreeLockCompletesWithAnOrdinaryHandle() {
        DistributedLockFactory locks = factory();
        LockHandle h = locks.acquireAsync("async:free").toCompletableFuture().join();
        assertThat(h.holdCount()).isEqualTo(1);
        h.acquireAgain();
        assertThat(h.holdCount()).isEqualTo(2);
        h.close();
        assertThat(h.isValid()).isFalse();
        assertThatThrownBy(h::release).isInstanceOf(IllegalStateException.class);
    }
}
