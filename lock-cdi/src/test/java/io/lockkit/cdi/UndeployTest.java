package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.LockLostException;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.se.SeContainer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("undeploy drains: a running @Locked method keeps its lock until it returns or the drain time ends")
class UndeployTest {

    /** Each task its own thread: blocking tasks must not queue behind each other in the common pool. */
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch started = new CountDownLatch(1);
    static volatile CountDownLatch finish = new CountDownLatch(1);

    @AfterEach
    void clear() {
        threads.shutdownNow();
        Lockkit.clearConfig();
        finish.countDown();
    }

    /** The job both "instances" run under one lock. */
    @ApplicationScoped
    public static class NightlyJob {
        @Locked("nightly-job")
        public void runUntilTold(String instance) throws InterruptedException {
            EVENTS.add(instance + " starts");
            started.countDown();
            finish.await();
            EVENTS.add(instance + " ends");
        }

        @Locked(value = "nightly-job", waitTime = 30, waitUnit = java.time.temporal.ChronoUnit.SECONDS)
        public void runOnce(String instance) {
            EVENTS.add(instance + " runs");
        }
    }

    @Test
    @DisplayName("another instance gets the lock only after the undeployed instance's method returned")
    void otherInstanceWaitsForTheRunningMethod(RedisServer redis) throws Exception {
        EVENTS.clear();
        started = new CountDownLatch(1);
        finish = new CountDownLatch(1);
        Lockkit.useRedis(redis, "lockkit.drain-timeout", "30s");
        SeContainer undeployed = Lockkit.start("drain-a", NightlyJob.class);
        SeContainer survivor = Lockkit.start("drain-b", NightlyJob.class);
        try {
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> call(undeployed, "a"), threads);
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> undeploy = CompletableFuture.runAsync(undeployed::close, threads);
            CompletableFuture<Void> other = CompletableFuture.runAsync(
                    () -> survivor.select(NightlyJob.class).get().runOnce("b"), threads);
            await().during(Duration.ofMillis(700))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> !other.isDone() && !undeploy.isDone());
            finish.countDown();
            running.get(10, TimeUnit.SECONDS);
            other.get(10, TimeUnit.SECONDS);
            undeploy.get(10, TimeUnit.SECONDS);
            assertThat(EVENTS).containsExactly("a starts", "a ends", "b runs");
        } finally {
            finish.countDown();
            survivor.close();
        }
    }

    @Test
    @DisplayName("a method still running when the drain time ends loses the lock, and its caller is told")
    void methodPastTheDrainTimeIsTold(RedisServer redis) throws Exception {
        EVENTS.clear();
        started = new CountDownLatch(1);
        finish = new CountDownLatch(1);
        Lockkit.useRedis(redis, "lockkit.drain-timeout", "300ms");
        SeContainer undeployed = Lockkit.start("drain-c", NightlyJob.class);
        SeContainer survivor = Lockkit.start("drain-d", NightlyJob.class);
        try {
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> call(undeployed, "a"), threads);
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture.runAsync(undeployed::close, threads).get(10, TimeUnit.SECONDS);
            survivor.select(NightlyJob.class).get().runOnce("b");
            finish.countDown();
            assertThatThrownBy(() -> running.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("released when the lock factory closed");
            assertThat(EVENTS).containsExactly("a starts", "b runs", "a ends");
        } finally {
            finish.countDown();
            survivor.close();
        }
    }

    private static void call(SeContainer app, String instance) {
        try {
            app.select(NightlyJob.class).get().runUntilTold(instance);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
