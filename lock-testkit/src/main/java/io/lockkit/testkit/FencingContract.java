package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Fencing tokens" ({@link LockContractTest.Fencing}): tokens strictly increase from holder to
 * holder, across lapses and force releases; reentry keeps the token.
 */
abstract class FencingContract extends ContractGroup {

    FencingContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("tokens strictly increase from holder to holder across clients")
    void tokensIncreaseAcrossHolders() throws Exception {
        assume(Capability.FENCING_TOKENS);
        String name = name();
        long last = Long.MIN_VALUE;
        for (int i = 0; i < 10; i++) {
            try (LockHandle h = client().acquire(name, waitFor(Duration.ofSeconds(2)))) {
                assertThat(h.fencingToken()).isGreaterThan(last);
                last = h.fencingToken();
            }
        }
    }

    @Test
    @DisplayName("a token after a lapsed lease is greater than the lapsed one")
    void tokensIncreaseAcrossExpiry() throws Exception {
        assume(Capability.FENCING_TOKENS);
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        LockHandle first = client().acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
        LockHandle second = client().acquire(name, waitFor(Duration.ofSeconds(5)));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    }

    @Test
    @DisplayName("a token after a force release is greater than the released one")
    void tokensIncreaseAcrossForceRelease() throws Exception {
        assume(Capability.FENCING_TOKENS);
        assume(Capability.FORCE_RELEASE);
        String name = name();
        LockHandle first = client().acquire(name, LockOptions.noWait());
        assertThat(client().getLock(name).forceUnlock()).isTrue();
        LockHandle second = client().acquire(name, LockOptions.noWait());
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    }

    @Test
    @DisplayName("a reentrant acquisition keeps the token, for threads and handles")
    void reentrantAcquisitionKeepsTheToken() throws Exception {
        assume(Capability.FENCING_TOKENS);
        DistributedLock lock = client().getLock(name());
        lock.lock();
        long token = lock.fencingToken();
        assertThat(lock.tryLock(scaled(Duration.ofSeconds(2)), null)).isTrue();
        assertThat(lock.fencingToken()).isEqualTo(token);
        lock.unlock();
        assertThat(lock.fencingToken()).isEqualTo(token);
        lock.unlock();

        LockHandle h = client().acquire(name(), LockOptions.noWait());
        long handleToken = h.fencingToken();
        h.acquireAgain();
        assertThat(h.fencingToken()).isEqualTo(handleToken);
        h.close();
    }

    @Test
    @DisplayName("a thread's next hold after a release that failed carries a new token, and its unlock frees the lock")
    void holdAfterAFailedReleaseHasANewToken() throws Exception {
        assume(Capability.FENCING_TOKENS);
        AtomicBoolean failRelease = new AtomicBoolean();
        DistributedLockFactory f = clientOver(new ForwardingLockProvider(provider()) {
            @Override
            public Release release(String lockName, String owner) {
                if (failRelease.compareAndSet(true, false)) {
                    // The release never reached the backend (a broken connection): the backend still holds it.
                    throw new BackendUnavailableException(lockName, "kit: the release was not sent", null);
                }
                return super.release(lockName, owner);
            }
        });
        String name = name();
        DistributedLock lock = f.getLock(name);
        lock.lock();
        long first = lock.fencingToken();
        failRelease.set(true);
        assertThatThrownBy(lock::unlock).isInstanceOf(BackendUnavailableException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();

        // The same thread (the same owner on the backend) locks again while its earlier hold is still
        // there: a new hold, which a fenced resource must tell from the one that ended.
        assertThat(lock.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
        assertThat(lock.fencingToken())
                .as("the token of the hold after the failed release")
                .isGreaterThan(first);
        lock.unlock();
        assertThat(client().tryAcquire(name))
                .as("the lock after the unlock of that hold")
                .isPresent();
    }

    @Test
    @DisplayName("a thread's next hold after an acquisition whose answer was lost frees the lock at its unlock")
    void holdAfterALostAcquisitionAnswerIsReleasedFully() throws Exception {
        AtomicBoolean loseAnswer = new AtomicBoolean();
        DistributedLockFactory f = clientOver(new ForwardingLockProvider(provider()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                if (loseAnswer.compareAndSet(true, false)) {
                    // The backend acquired, but its answer never came back.
                    throw new BackendUnavailableException(request.name(), "kit: the answer was lost", null);
                }
                return a;
            }
        });
        String name = name();
        DistributedLock lock = f.getLock(name);
        loseAnswer.set(true);
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null)).isInstanceOf(BackendUnavailableException.class);
        assertThat(lock.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(lock.fencingToken()).isPositive();
        }
        lock.unlock();
        assertThat(client().tryAcquire(name))
                .as("the lock after the unlock of that hold")
                .isPresent();
    }

    @Test
    @DisplayName("asking for the token without holding the lock throws IllegalMonitorStateException")
    void tokenWithoutHoldThrows() {
        assume(Capability.FENCING_TOKENS);
        DistributedLock lock = client().getLock(name());
        assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::remainingLease).isInstanceOf(IllegalMonitorStateException.class);
    }
}
