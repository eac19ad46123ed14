package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("A runtime's hooks (io.lockkit.cdi.spi.LockedRuntime): event-loop guard, resume executor, adapted types")
class LockedRuntimeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @RegisterExtension
    final Lockkit.PerTest cdi = Lockkit.perTest(RuntimeWork.class);

    @Inject
    RuntimeWork work;

    @Inject
    DistributedLockFactory locks;

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @AfterEach
    void resetThread() {
        TestRuntime.nonBlocking(false);
        TestRuntime.resumeOn(null);
    }

    @Test
    @DisplayName("a blocking method called on a thread that must not block fails before acquiring, saying what to do")
    void blockingMethodOnANonBlockingThreadFailsFast() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestRuntime.nonBlocking(true);
        try (LockHandle someoneElse = locks.acquire("runtime:a")) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> work.blocking("a", runs))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("RuntimeWork.blocking(")
                    .hasMessageContaining("must not block")
                    .hasMessageContaining("return Uni or CompletionStage")
                    .hasMessageContaining("@Blocking, @RunOnVirtualThread");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("failed at once, not after waiting out the busy lock (60 s)")
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(someoneElse.holdCount()).isEqualTo(1);
        }
        assertThat(runs).hasValue(0);
        assertThat(locks.operations().inspect("runtime:a"))
                .as("nothing was acquired")
                .isEmpty();
        TestRuntime.nonBlocking(false);
        assertThat(work.blocking("a", runs)).isEqualTo("done");
        assertThat(runs).hasValue(1);
    }

    @Test
    @DisplayName("an asynchronous method called on a thread that must not block runs as usual")
    void asynchronousMethodOnANonBlockingThreadRuns() throws Exception {
        TestRuntime.nonBlocking(true);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        assertThat(work.noting("b", ranOn).get(5, TimeUnit.SECONDS)).isEqualTo("done");
    }

    @Test
    @DisplayName("the body of an asynchronous method resumes on the runtime's executor once the lock is granted")
    void bodyResumesOnTheRuntimeExecutor() throws Exception {
        ExecutorService loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-event-loop"));
        try {
            TestRuntime.resumeOn(loop);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            CompletableFuture<String> result;
            try (LockHandle someoneElse = locks.acquire("runtime:c")) {
                result = work.noting("c", ranOn);
                assertThat(ranOn.get()).as("waits for the lock").isNull();
            }
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(ranOn.get().getName()).isEqualTo("test-event-loop");
        } finally {
            loop.shutdownNow();
        }
    }

    @Test
    @DisplayName("an adapted type is lazy: the lock is taken and the method called only when it is started")
    void adaptedTypeIsLazy() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<String> inner = new CompletableFuture<>();
        Deferred<String> deferred = work.deferred("d", calls, () -> inner);
        assertThat(calls).hasValue(0);
        assertThat(held("runtime:d")).isFalse();
        CompletableFuture<String> started = deferred.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 1);
        assertThat(held("runtime:d")).as("held while the method's value runs").isTrue();
        inner.complete("done");
        assertThat(started.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        await().atMost(Duration.ofSeconds(5)).until(() -> !held("runtime:d"));
    }

    @Test
    @DisplayName("started concurrently, an adapted type's work never overlaps and loses no update")
    void adaptedTypeExcludesUnderContention() throws Exception {
        int starts = 40;
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pauses = Executors.newFixedThreadPool(4);
        try {
            AtomicInteger calls = new AtomicInteger();
            Deferred<Integer> increment = work.deferred("e", calls, () -> {
                if (inside.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                int read = counter[0];
                // read, pause on another thread (nobody blocks), write
                return CompletableFuture.supplyAsync(
                        () -> {
                            counter[0] = read + 1;
                            inside.decrementAndGet();
                            return read + 1;
                        },
                        CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS, pauses));
            });
            List<CompletableFuture<Integer>> all = new ArrayList<>();
            for (int i = 0; i < starts; i++) {
                all.add(increment.start());
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(calls).hasValue(starts);
        } finally {
            pauses.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(counter[0]).isEqualTo(starts);
    }

    @Test
    @DisplayName("cancelling a started adapted type while its work runs releases the lock")
    void cancellingTheRunningWorkReleases() {
        CompletableFuture<String> inner = new CompletableFuture<>();
        CompletableFuture<String> started =
                work.deferred("f", new AtomicInteger(), () -> inner).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> held("runtime:f"));
        started.cancel(false);
        await().atMost(Duration.ofSeconds(5)).until(() -> !held("runtime:f"));
        await().atMost(Duration.ofSeconds(5)).until(inner::isCancelled);
    }

    @Test
    @DisplayName("cancelling a started adapted type while it waits abandons the wait: the method is never called")
    void cancellingTheWaitTakesNothing() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<String> started;
        try (LockHandle someoneElse = locks.acquire("runtime:g")) {
            started = work.deferred("g", calls, () -> CompletableFuture.completedFuture("ran"))
                    .start();
            started.cancel(false);
        }
        await("the lock is free after its holder released it")
                .atMost(Duration.ofSeconds(10))
                .until(() -> locks.tryAcquire("runtime:g")
                        .map(h -> {
                            h.release();
                            return true;
                        })
                        .orElse(false));
        assertThat(calls).hasValue(0);
    }

    @Test
    @DisplayName("whenBusy = SKIP on an adapted type completes without calling the method when the lock is busy")
    void adaptedTypeSkips() throws Exception {
        try (LockHandle someoneElse = locks.acquire("runtime:h")) {
            assertThat(work.deferredOrSkip("h").start().get(10, TimeUnit.SECONDS))
                    .isNull();
        }
        assertThat(work.deferredOrSkip("h").start().get(10, TimeUnit.SECONDS)).isEqualTo("ran");
    }

    private boolean held(String name) {
        return locks.getLock(name).isLocked();
    }
}
