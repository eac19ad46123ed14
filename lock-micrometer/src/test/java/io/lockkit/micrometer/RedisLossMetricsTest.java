package io.lockkit.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("LockMetrics over real Redis")
class RedisLossMetricsTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    @DisplayName("a lock key deleted under its holder is counted as lost (not_held) at the next renewal")
    void deletedKeyIsCountedAsLost(RedisServer redis) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LockMetrics metrics = LockMetrics.create();
        metrics.bindTo(registry);
        String name = "metrics-loss-" + System.nanoTime();
        try (DistributedLockFactory locks = DistributedLockFactory.builder(JedisLockProvider.create(redis.uri()))
                .observer(metrics)
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofMillis(1500))
                        .build())
                .build()) {
            LockHandle held = locks.acquire(name);
            assertThat(registry.get(LockMetrics.HOLDS_ACTIVE).gauge().value()).isEqualTo(1);
            @SuppressWarnings("unchecked")
            List<String> keys = (List<String>) redis.command("KEYS", "*" + name + "*");
            assertThat(keys).isNotEmpty();
            for (String key : keys) {
                redis.command("DEL", key);
            }
            held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(registry.get(LockMetrics.LOST)
                            .tag(LockMetrics.CAUSE_TAG, "not_held")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(LockMetrics.HOLDS_ACTIVE).gauge().value()).isZero();
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tag(LockMetrics.OUTCOME_TAG, "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
        }
    }
}
