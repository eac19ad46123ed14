package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's quick start on Redis, compiled and run; the block between the markers is copied there. */
@ExtendWith(RedisExtension.class)
class RedisQuickStartTest {

    private final List<Long> shippedWithTokens = new ArrayList<>();

    @Test
    void quickStartShipsTwiceWithIncreasingTokens(RedisServer redis) throws InterruptedException {
        String redisUri = redis.uri();
        // quick-start:begin
        try (DistributedLockFactory locks = DistributedLockFactory.create(JedisLockProvider.create(redisUri))) {
            DistributedLock lock = locks.getLock("orders:42"); // a java.util.concurrent.locks.Lock
            lock.lock(); // held by the watchdog until unlock
            try {
                ship(42, lock.fencingToken()); // the resource refuses older tokens
            } finally {
                lock.unlock();
            }

            try (LockHandle hold = locks.acquire("orders:42", LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
                hold.lost().thenAccept(loss -> System.err.println("stop work: " + loss.getMessage()));
                ship(42, hold.fencingToken()); // a handle may be released by any thread
            }
        }
        // quick-start:end
        assertThat(shippedWithTokens).hasSize(2);
        assertThat(shippedWithTokens.get(1)).isGreaterThan(shippedWithTokens.get(0));
    }

    private void ship(long order, long fencingToken) {
        assertThat(order).isEqualTo(42);
        shippedWithTokens.add(fencingToken);
    }
}
