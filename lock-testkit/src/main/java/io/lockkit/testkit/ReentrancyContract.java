package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Reentrancy and hold counts" ({@link LockContractTest.Reentrancy}): a thread or a handle takes
 * its lock again and holds it until the last release.
 */
abstract class ReentrancyContract extends ContractGroup {

    ReentrancyContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("a thread can lock 10 deep and holds until the tenth unlock")
    void threadLocksTenDeep() throws Exception {
        String name = name();
        DistributedLock lock = client().getLock(name);
        DistributedLock other = client().getLock(name);
        for (int i = 1; i <= 10; i++) {
            assertThat(lock.tryLock(scaled(Duration.ofSeconds(2)), null))
                    .as("nested lock %d", i)
                    .isTrue();
            assertThat(lock.getHoldCount()).isEqualTo(i);
        }
        for (int i = 9; i >= 1; i--) {
            lock.unlock();
            assertThat(lock.getHoldCount()).isEqualTo(i);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
        }
        assertThat(other.tryLock()).as("another client while one hold remains").isFalse();
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(other.tryLock()).as("another client after the last unlock").isTrue();
        other.unlock();
    }

    @Test
    @DisplayName("hold counts belong to threads: another thread of the same client is kept out")
    void holdCountsArePerThread() throws Exception {
        String name = name();
        DistributedLock lock = client().getLock(name);
        lock.lock();
        assertThat(lock.tryLock(scaled(Duration.ofSeconds(2)), null))
                .as("nested lock")
                .isTrue();
        AtomicReference<Object[]> seen = new AtomicReference<>();
        Thread t = start(
                "other-thread",
                () -> seen.set(new Object[] {lock.tryLock(), lock.getHoldCount(), lock.isHeldByCurrentThread()}));
        t.join(scaled(Duration.ofSeconds(10)).toMillis());
        assertThat(seen.get()).containsExactly(false, 0, false);
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        lock.unlock();
    }

    @Test
    @DisplayName("two lock objects of one name on one thread share the hold count")
    void lockObjectsOfOneNameShareTheThreadsHold() throws Exception {
        String name = name();
        DistributedLockFactory client = client();
        DistributedLock first = client.getLock(name);
        DistributedLock second = client.getLock(name);
        first.lock();
        assertThat(second.tryLock(scaled(Duration.ofSeconds(2)), null)).isTrue();
        assertThat(first.getHoldCount()).isEqualTo(2);
        second.unlock();
        first.unlock();
        assertThat(second.isHeldByCurrentThread()).isFalse();
    }

    @Test
    @DisplayName("a handle can be acquired again 10 deep and holds until the tenth release")
    void handleAcquiresTenDeep() throws Exception {
        String name = name();
        DistributedLockFactory other = client();
        LockHandle h = client().acquire(name, waitFor(Duration.ofSeconds(2)));
        for (int i = 2; i <= 10; i++) {
            h.acquireAgain();
            assertThat(h.holdCount()).isEqualTo(i);
        }
        for (int i = 9; i >= 1; i--) {
            h.release();
            assertThat(h.holdCount()).isEqualTo(i);
            assertThat(h.isValid()).isTrue();
        }
        assertThat(other.tryAcquire(name))
                .as("another client while one hold remains")
                .isEmpty();
        h.release();
        assertThat(h.isValid()).isFalse();
        assertThat(other.tryAcquire(name))
                .as("another client after the last release")
                .isPresent();
    }

    @Test
    @DisplayName("two handles of one client are two owners")
    void handlesAreSeparateOwners() throws Exception {
        String name = name();
        DistributedLockFactory client = client();
        try (LockHandle first = client.acquire(name, waitFor(Duration.ofSeconds(2)))) {
            assertThat(first.isValid()).isTrue();
            assertThat(client.tryAcquire(name)).isEmpty();
        }
        assertThat(client.tryAcquire(name)).isPresent();
    }

    @Test
    @DisplayName("a handle may be released from another thread than the one that took it")
    void handleIsReleasedFromAnotherThread() throws Exception {
        String name = name();
        LockHandle h = client().acquire(name, waitFor(Duration.ofSeconds(2)));
        Thread t = start("releaser", h::release);
        t.join(scaled(Duration.ofSeconds(10)).toMillis());
        assertThat(h.isValid()).isFalse();
        assertThat(client().tryAcquire(name)).isPresent();
    }

    @Test
    @DisplayName("unlocking more often than locking throws IllegalMonitorStateException")
    void unlockingTooOftenThrows() {
        DistributedLock lock = client().getLock(name());
        lock.lock();
        lock.unlock();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .isNotInstanceOf(LockLostException.class);
    }
}
