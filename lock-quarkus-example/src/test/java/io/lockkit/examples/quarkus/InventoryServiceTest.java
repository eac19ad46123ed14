package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.jedis.JedisLockProvider;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(RedisResource.class)
@DisplayName("lock-cdi in Quarkus (ArC, CDI Lite) against real Redis")
class InventoryServiceTest {

    @Inject
    InventoryService inventory;

    @Inject
    DistributedLockFactory locks;

    @ConfigProperty(name = "lockkit.redis.uri")
    String redisUri;

    @Test
    @DisplayName("concurrent calls of a @Locked method never overlap and lose no update")
    void lockedMethodExcludesConcurrentCalls() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        inventory.reserve("tea", 1);
                    }
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(inventory.mostInside()).as("callers inside at once").isEqualTo(1);
        assertThat(inventory.reserved("tea")).isEqualTo(160);
    }

    @Test
    @DisplayName("the injected factory and @Locked take the same Redis lock")
    void injectedFactoryAndLockedShareLocks() throws Exception {
        try (LockHandle hold = locks.acquire("sku:coffee")) {
            assertThat(hold.fencingToken()).isPositive();
            assertThatThrownBy(() -> inventory.reserveNow("coffee", 1))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("sku:coffee");
        }
        assertThat(inventory.reserveNow("coffee", 1)).isEqualTo(1);
    }

    @Test
    @DisplayName("a lock held by another process (another Redis client) excludes the @Locked method")
    void anotherProcessExcludesTheLockedMethod() throws Exception {
        JedisLockProvider otherProcess =
                JedisLockProvider.builder().uri(redisUri).keyPrefix("inventory").build();
        try (DistributedLockFactory elsewhere = DistributedLockFactory.create(otherProcess);
                LockHandle hold = elsewhere.acquire("sku:sugar")) {
            assertThatThrownBy(() -> inventory.reserveNow("sugar", 2)).isInstanceOf(LockNotAcquiredException.class);
        }
        assertThat(inventory.reserveNow("sugar", 2)).isEqualTo(2);
    }
}
