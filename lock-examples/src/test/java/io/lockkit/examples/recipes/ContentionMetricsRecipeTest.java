package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.micrometer.LockMetrics;
import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "watching contention through the metrics" (docs/recipes.md): one instance holds a
 * lock while another waits for it and a third caller gives up, and the waiting instance's meters
 * show the waiter, the wait and the caller that gave up.
 */
@DisplayName("recipe: contention seen in lock-micrometer's meters")
class ContentionMetricsRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    @DisplayName("a waiter shows in lockkit.waiters, its wait in lockkit.acquire, a caller that gave up as timed_out")
    void contentionShowsInTheMeters(RedisServer redis) throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        LockProvider provider = JedisLockProvider.create(redis.uri());
        // guide:metrics-contention-begin
        LockMetrics metrics = LockMetrics.builder()
                .lockNameTag(name -> name.startsWith("stock:") ? "stock" : "other") // a few values, never the names
                .build();
        metrics.bindTo(registry);
        DistributedLockFactory locks =
                DistributedLockFactory.builder(provider).observer(metrics).build();
        // guide:metrics-contention-end
        try (metrics;
                locks;
                DistributedLockFactory otherInstance =
                        DistributedLockFactory.create(JedisLockProvider.create(redis.uri()))) {
            LockHandle held = otherInstance.acquire("stock:tea");

            assertThatThrownBy(() -> locks.acquire("stock:tea", LockOptions.waitAtMost(Duration.ofMillis(100))))
                    .isInstanceOf(LockNotAcquiredException.class);
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (LockHandle hold = locks.acquire("stock:tea", LockOptions.waitAtMost(Duration.ofSeconds(30)))) {
                    return hold.fencingToken();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> registry.get("lockkit.waiters").gauge().value() == 1);
            long seenWaiting = System.nanoTime();
            held.release();
            long releasedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - seenWaiting);
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());

            // guide:metrics-read-begin
            Timer acquired = registry.get("lockkit.acquire")
                    .tags("lock", "stock", "outcome", "acquired")
                    .timer();
            Timer gaveUp = registry.get("lockkit.acquire")
                    .tags("lock", "stock", "outcome", "timed_out")
                    .timer();
            double meanWaitMillis = acquired.mean(TimeUnit.MILLISECONDS); // call to lock, per acquisition
            double longestWaitMillis = acquired.max(TimeUnit.MILLISECONDS); // in the last few minutes
            long callersThatGaveUp = gaveUp.count(); // their wait ran out: LockNotAcquiredException or a skip
            double waitingNow = registry.get("lockkit.waiters").gauge().value();
            // guide:metrics-read-end

            assertThat(acquired.count()).isEqualTo(1);
            assertThat(longestWaitMillis)
                    .as("the waiter waited at least from when it was seen waiting to the release")
                    .isGreaterThanOrEqualTo(releasedAfterMillis);
            assertThat(meanWaitMillis).isEqualTo(longestWaitMillis);
            assertThat(callersThatGaveUp).isEqualTo(1);
            assertThat(gaveUp.max(TimeUnit.MILLISECONDS))
                    .as("it gave up after its wait")
                    .isGreaterThanOrEqualTo(100);
            assertThat(waitingNow).isZero();
            assertThat(registry.get("lockkit.holds.active").gauge().value()).isZero();
        }
        assertThat(registry.find("lockkit.acquire").meters())
                .as("closing the metrics removed its meters")
                .isEmpty();
    }
}
