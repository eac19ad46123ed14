package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked when the lock is busy")
class BusyPolicyTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @RegisterExtension
    final Lockkit.PerTest cdi = Lockkit.perTest(BusyWork.class);

    @Inject
    BusyWork work;

    @Inject
    DistributedLockFactory locks;

    private LockHandle someoneElse;

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @BeforeEach
    void takeTheLock() throws InterruptedException {
        someoneElse = locks.acquire(BusyWork.LOCK);
    }

    @AfterEach
    void releaseIt() {
        someoneElse.close();
    }

    @Test
    @DisplayName("by default the call fails with LockNotAcquiredException and the method does not run")
    void busyLockFailsTheCall() {
        assertThatThrownBy(work::tryOnce)
                .isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining(BusyWork.LOCK);
        assertThat(work.ran()).isEqualTo(0);
    }

    @Test
    @DisplayName("a bounded wait fails only after the wait")
    void boundedWaitFailsAfterTheWait() {
        long start = System.nanoTime();
        assertThatThrownBy(work::waitBriefly)
                .isInstanceOf(LockNotAcquiredException.class)
                .satisfies(
                        e -> assertThat(((LockNotAcquiredException) e).waited()).isEqualTo(Duration.ofMillis(200)));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
        assertThat(work.ran()).isEqualTo(0);
    }

    @Test
    @DisplayName("a waiting call runs as soon as the holder releases")
    void waitingCallRunsWhenReleased() throws Exception {
        CompletableFuture<String> call = CompletableFuture.supplyAsync(work::waitLong);
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5)).until(() -> !call.isDone());
        someoneElse.release();
        assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo("ran");
    }

    @Test
    @DisplayName("an interrupted wait throws InterruptedException where the method declares it, else a"
            + " LockException, the thread still interrupted")
    void interruptedWait() throws InterruptedException {
        Interrupted declaring = interruptWhileWaiting(() -> {
            work.waitDeclaringInterruption();
            return null;
        });
        assertThat(declaring.thrown()).isInstanceOf(InterruptedException.class);
        Interrupted undeclared = interruptWhileWaiting(work::waitLong);
        assertThat(undeclared.thrown())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("interrupted while waiting for the lock of @Locked")
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(undeclared.stillInterrupted())
                .as("the thread's interrupt flag")
                .isTrue();
        assertThat(work.ran()).isEqualTo(0);
    }

    /** What a call interrupted while it waited threw, and whether its thread was interrupted after. */
    private record Interrupted(@Nullable Throwable thrown, boolean stillInterrupted) {}

    private static Interrupted interruptWhileWaiting(Callable<?> call) throws InterruptedException {
        AtomicReference<Interrupted> outcome = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                call.call();
                outcome.set(new Interrupted(null, Thread.currentThread().isInterrupted()));
            } catch (Exception e) {
                outcome.set(new Interrupted(e, Thread.currentThread().isInterrupted()));
            }
        });
        caller.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        caller.getState() == Thread.State.WAITING || caller.getState() == Thread.State.TIMED_WAITING);
        caller.interrupt();
        caller.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(caller.isAlive()).as("the call returned once interrupted").isFalse();
        return outcome.get();
    }

    @Test
    @DisplayName("SKIP skips a void method and returns null for a value")
    void skipReturnsNothingOrNull() {
        work.skipVoid();
        assertThat(work.skipValue()).isNull();
        assertThat(work.ran()).isEqualTo(0);
    }

    @Test
    @DisplayName("SKIP returns Optional.empty() and stages completed with null or an empty Optional")
    void skipReturnsEmptyResults() throws Exception {
        assertThat(work.skipOptional()).isEmpty();
        assertThat(work.skipStage().toCompletableFuture().get()).isNull();
        assertThat(work.skipFutureOfOptional().get()).isEqualTo(Optional.empty());
        assertThat(work.ran()).isEqualTo(0);
    }

    @Test
    @DisplayName("SKIP methods run normally when the lock is free")
    void skipMethodsRunWhenFree() throws Exception {
        someoneElse.release();
        work.skipVoid();
        assertThat(work.skipValue()).isEqualTo("ran");
        assertThat(work.skipOptional()).contains("ran");
        assertThat(work.skipFutureOfOptional().get()).contains("ran");
        assertThat(work.ran()).isEqualTo(4);
    }
}
