package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.Map;
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

    @Test
    @DisplayName("hold counts go past 16 bits: at 32,768 holds of one owner a release leaves 32,767, and the lock held")
    void holdCountsGoPast16Bits() throws Exception {
        LockProvider p = closeAfterTest(provider());
        String name = name();
        String owner = RenewalContract.newClient() + ":h1";
        Duration lease = scaled(Duration.ofMinutes(2));
        int holds = 1 << 15; // one more than a signed 16-bit count holds
        assertThat(p.tryAcquire(new LockRequest(name, owner, lease, Duration.ZERO))
                        .isAcquired())
                .isTrue();
        kit.raiseHoldCount(p, name, owner, lease, holds - 1);
        assertThat(p.tryAcquire(new LockRequest(name, owner, lease, Duration.ZERO))
                        .isAcquired())
                .as("the acquisition that makes %d holds", holds)
                .isTrue();
        if (has(Capability.INSPECTION)) {
            assertThat(p.inspect(name).map(LockProvider.LockState::holdCounts))
                    .as("hold counts after %d acquisitions", holds)
                    .contains(Map.of(owner, holds));
        }
        assertThat(p.release(name, owner).outcome())
                .as("a release of %d holds", holds)
                .isEqualTo(Release.Outcome.STILL_HELD);
        if (has(Capability.INSPECTION)) {
            assertThat(p.inspect(name).map(LockProvider.LockState::holdCounts))
                    .as("hold counts after one release")
                    .contains(Map.of(owner, holds - 1));
        }
        assertThat(p.tryAcquire(new LockRequest(name, RenewalContract.newClient() + ":h1", lease, Duration.ZERO))
                        .isAcquired())
                .as("another owner, while %d holds remain", holds - 1)
                .isFalse();
        if (has(Capability.FORCE_RELEASE)) {
            p.forceRelease(name); // else its lease ends it
        }
    }
}
