package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked methods returning CompletionStage or CompletableFuture")
class AsyncMethodTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @RegisterExtension
    final Lockkit.PerTest cdi = Lockkit.perTest(AsyncWork.class);

    @Inject
    AsyncWork async;

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

    @Test
    @DisplayName("the lock is held after the method returns, until the future completes on another thread")
    void heldUntilTheFutureCompletes() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = async.future("a", work);
        awaitHeld("report:a");
        CompletableFuture.runAsync(() -> work.complete("done")).get(5, TimeUnit.SECONDS);
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        await().atMost(Duration.ofSeconds(5)).until(() -> !held("report:a"));
    }

    @Test
    @DisplayName("the lock is released when the future fails, and the failure reaches the caller")
    void releasedWhenTheFutureFails() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = async.future("b", work);
        awaitHeld("report:b");
        work.completeExceptionally(new IllegalStateException("report failed"));
        assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("report failed");
        assertThat(held("report:b")).isFalse();
    }

    @Test
    @DisplayName("a CompletionStage method is held until its stage completes")
    void completionStageIsHeldToo() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletionStage<String> result = async.stage("c", work);
        awaitHeld("report:c");
        work.complete("done");
        CompletableFuture<String> seen = new CompletableFuture<>();
        result.whenComplete((v, e) -> seen.complete(v));
        assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(held("report:c")).isFalse();
    }

    @Test
    @DisplayName("a busy lock comes back as a stage failed with LockNotAcquiredException")
    void busyLockIsAFailedStage() throws Exception {
        try (LockHandle someoneElse = locks.acquire("report:d")) {
            CompletableFuture<String> result = async.tryOnce("d", new CompletableFuture<>());
            assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LockNotAcquiredException.class);
        }
    }

    @Test
    @DisplayName("cancelling the returned future cancels the work and releases the lock")
    void cancellingReleasesTheLock() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = async.future("e", work);
        awaitHeld("report:e");
        // Held is not yet running: the method is called just after the grant. Wait for the method's
        // future to be followed, or the cancellation (rightly) only abandons the call.
        await("the method runs").atMost(Duration.ofSeconds(10)).until(() -> work.getNumberOfDependents() > 0);
        result.cancel(true);
        await().atMost(Duration.ofSeconds(5)).until(work::isCancelled);
        assertThat(held("report:e")).isFalse();
    }

    @Test
    @DisplayName("the caller does not wait for a busy lock: the method runs on another thread once it is granted")
    void theCallerDoesNotWait() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result;
        try (LockHandle someoneElse = locks.acquire("report:f")) {
            long start = System.nanoTime();
            result = async.noting("f", work, ranOn);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("the call returned without waiting out the busy lock (60 s)")
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(result).isNotDone();
            assertThat(ranOn.get()).as("the method waits for the lock").isNull();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ranOn.get() != null);
        assertThat(ranOn.get()).isNotSameAs(Thread.currentThread());
        assertThat(held("report:f")).isTrue();
        work.complete("done");
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        await().atMost(Duration.ofSeconds(5)).until(() -> !held("report:f"));
    }

    @Test
    @DisplayName("cancelling the returned future while the lock is awaited abandons the wait: the method never runs")
    void cancellingWhileWaitingTakesNothing() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CompletableFuture<String> result;
        try (LockHandle someoneElse = locks.acquire("report:g")) {
            result = async.noting("g", new CompletableFuture<>(), ranOn);
            assertThat(result.cancel(true)).isTrue();
        }
        await("the lock is free after its holder released it")
                .atMost(Duration.ofSeconds(10))
                .until(() -> locks.tryAcquire("report:g")
                        .map(h -> {
                            h.release();
                            return true;
                        })
                        .orElse(false));
        assertThat(ranOn.get()).isNull();
    }

    @Test
    @DisplayName("holdAtLeast keeps the lock after the future completed early")
    void holdAtLeastOutlivesTheFuture() throws Exception {
        long start = System.nanoTime();
        CompletableFuture<String> result = async.atLeast("h", CompletableFuture.completedFuture("done"));
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        if (Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofMillis(400)) < 0) {
            assertThat(held("report:h"))
                    .as("still held after the future completed")
                    .isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !held("report:h"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(450));
    }

    private void awaitHeld(String name) {
        await("the method runs under the lock").atMost(Duration.ofSeconds(10)).until(() -> held(name));
    }

    private boolean held(String name) {
        return locks.getLock(name).isLocked();
    }
}
