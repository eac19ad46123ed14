package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's quick start, compiled and run; copy the block between the markers into the README. */
class QuickStartTest {

    private final List<Long> shippedWithTokens = new ArrayList<>();

    @Test
    void quickStartShipsTwiceWithIncreasingTokens() throws InterruptedException {
        // quick-start:begin
        try (DistributedLockFactory locks = DistributedLockFactory.create(new LocalLockProvider())) {
            DistributedLock lock = locks.getLock("orders:42");
            lock.lock();
            try {
                ship(42, lock.fencingToken());
            } finally {
                lock.unlock();
            }

            try (LockHandle hold = locks.acquire("orders:42", LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
                ship(42, hold.fencingToken());
            }
        }
        // quick-start:end

        assertThat(shippedWithTokens).hasSize(2);
        assertThat(shippedWithTokens.get(1)).isGreaterThan(shippedWithTokens.get(0));
    }

    /** Stands for the protected resource, which stores the token and refuses older ones. */
    private void ship(long order, long fencingToken) {
        assertThat(order).isEqualTo(42);
        shippedWithTokens.add(fencingToken);
    }
}
