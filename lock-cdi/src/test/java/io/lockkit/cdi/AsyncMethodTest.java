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
        assertThat(held("report:a")).isTrue();
        CompletableFuture.runAsync(() -> work.complete("done")).get(5, TimeUnit.SECONDS);
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        await().atMost(Duration.ofSeconds(5)).until(() -> !held("report:a"));
    }

    @Test
    @DisplayName("the lock is released when the future fails, and the failure reaches the caller")
    void releasedWhenTheFutureFails() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = async.future("b", work);
        assertThat(held("report:b")).isTrue();
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
        assertThat(held("report:c")).isTrue();
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
            assertThat(result).isCompletedExceptionally();
            assertThatThrownBy(result::join).hasCauseInstanceOf(LockNotAcquiredException.class);
        }
    }

    @Test
    @DisplayName("cancelling the returned future cancels the work and releases the lock")
    void cancellingReleasesTheLock() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = async.future("e", work);
        assertThat(held("report:e")).isTrue();
        result.cancel(true);
        assertThat(work).isCancelled();
        assertThat(held("report:e")).isFalse();
    }

    private boolean held(String name) {
        return locks.getLock(name).isLocked();
    }
}
