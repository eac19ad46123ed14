package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockOptions;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Input validation" ({@link LockContractTest.Validation}): bad arguments are rejected naming the
 * argument.
 */
abstract class ValidationContract extends ContractGroup {

    ValidationContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("a null, blank, control-character or oversized name is rejected naming the argument")
    void badNamesAreRejected() {
        DistributedLockFactory c = client();
        for (String bad : new String[] {null, "", "   ", "a\u0000b", "line\nbreak", "x".repeat(1_000_000), "\ud800"}) {
            assertThatThrownBy(() -> c.getLock(bad))
                    .as("name %s", bad == null ? null : bad.length() > 20 ? bad.length() + " chars" : bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
            assertThatThrownBy(() -> c.tryAcquire(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
        }
    }

    @Test
    @DisplayName("a negative, zero or null lease is rejected naming the argument")
    void badLeasesAreRejected() {
        DistributedLock lock = client().getLock(name());
        for (Duration bad :
                new Duration[] {Duration.ofMillis(-1), Duration.ZERO, null, Duration.ofSeconds(Long.MAX_VALUE)}) {
            assertThatThrownBy(() -> lock.lock(bad))
                    .as("lease %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease");
            assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, bad == null ? Duration.ZERO : bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    @DisplayName("a negative or null wait is rejected naming the argument")
    @SuppressWarnings("NullAway") // passes null on purpose
    void badWaitsAreRejected() {
        DistributedLock lock = client().getLock(name());
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(-1), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> lock.tryLock(null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> LockOptions.builder().waitAtMost(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
    }

    @Test
    @DisplayName("contradictory or missing options are rejected")
    @SuppressWarnings("NullAway") // passes null on purpose
    void badOptionsAreRejected() {
        assertThatThrownBy(() -> LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(3))
                        .renewalInterval(Duration.ofSeconds(3))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewalInterval");
        assertThatThrownBy(() -> client().acquire(name(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options");
        assertThatThrownBy(() -> client().getLock(name()).tryLock(1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unit");
    }

    @Test
    @DisplayName("conditions are not supported")
    void conditionsAreNotSupported() {
        assertThatThrownBy(() -> client().getLock(name()).newCondition())
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
