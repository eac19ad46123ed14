package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * "Backend outage" ({@link LockContractTest.Outage}): attempts fail in bounded time while the
 * backend is down, and locks work after it returns; skipped unless
 * {@link LockContractTest#backendControl()} controls the backend.
 */
// Stops the backend: no other test may run meanwhile (see ContractGroup.BACKEND).
@ResourceLock(value = ContractGroup.BACKEND, mode = ResourceAccessMode.READ_WRITE)
abstract class OutageContract extends ContractGroup {

    OutageContract(LockContractTest kit) {
        super(kit);
    }

    /** The test class's control of its backend. */
    private BackendControl backend;

    @BeforeEach
    void requireBackendControl() {
        Optional<BackendControl> control = kit.backendControl();
        assumeTrue(control.isPresent(), "the test class cannot stop its backend (its backendControl() is empty)");
        backend = control.get();
    }

    @Test
    @DisplayName("while the backend is down, attempts fail with BackendUnavailableException in bounded time")
    void attemptsFailWhileDown() throws Exception {
        DistributedLockFactory c = client();
        String name = name();
        backend.stop();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> c.getLock(name).tryLock(scaled(Duration.ofSeconds(1)), null))
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(millisSince(start))
                    .isLessThan(scaled(Duration.ofSeconds(10)).toMillis());
        } finally {
            backend.start();
        }
    }

    @Test
    @DisplayName("a holder learns of an outage by its lease deadline")
    void holderLearnsOfOutageByDeadline() throws Exception {
        String name = name();
        LockHandle h = client().acquire(name, LockOptions.noWait());
        backend.stop();
        try {
            long start = System.nanoTime();
            h.lost().toCompletableFuture().get(watchdogLease().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(millisSince(start))
                    .isLessThanOrEqualTo(
                            watchdogLease().plus(scaled(Duration.ofMillis(500))).toMillis());
            assertThat(h.isValid()).isFalse();
        } finally {
            backend.start();
        }
    }

    @Test
    @DisplayName("after the backend returns, locks work again and tokens still increase")
    void locksWorkAfterRestart() throws Exception {
        String name = name();
        DistributedLockFactory c = client();
        long before;
        try (LockHandle h = c.acquire(name, LockOptions.noWait())) {
            before = has(Capability.FENCING_TOKENS) ? h.fencingToken() : 0;
            backend.stop();
            backend.startForgettingHolds();
            assertThatThrownBy(h::release).isInstanceOf(LockLostException.class);
        }
        LockHandle after = client().acquire(name, waitFor(Duration.ofSeconds(5)));
        assertThat(after.isValid()).isTrue();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(after.fencingToken()).isGreaterThan(before);
        }
    }
}
