package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Ownership" ({@link LockContractTest.Ownership}): only the owner releases; forceUnlock frees
 * anyone's hold.
 */
abstract class OwnershipContract extends ContractGroup {

    OwnershipContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("another thread cannot unlock a thread's hold")
    void anotherThreadCannotUnlock() throws Exception {
        String name = name();
        DistributedLock lock = client().getLock(name);
        lock.lock();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = start("intruder", () -> {
            try {
                lock.unlock();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.join(scaled(Duration.ofSeconds(5)).toMillis());
        assertThat(thrown.get()).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(client().getLock(name).tryLock()).isFalse();
        lock.unlock();
    }

    @Test
    @DisplayName("another client cannot unlock, and the hold survives the attempt")
    void anotherClientCannotUnlock() {
        String name = name();
        DistributedLock lock = client().getLock(name);
        lock.lock();
        assertThatThrownBy(() -> client().getLock(name).unlock()).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(client().getLock(name).tryLock()).isFalse();
        lock.unlock();
    }

    @Test
    @DisplayName("a released handle cannot release again, and closing it again does nothing")
    void releasedHandleCannotReleaseAgain() throws Exception {
        String name = name();
        LockHandle h = client().acquire(name, LockOptions.noWait());
        h.release();
        assertThatThrownBy(h::release).isInstanceOf(IllegalStateException.class);
        assertThatCode(h::close).doesNotThrowAnyException();
        assertThatCode(h::close).doesNotThrowAnyException();
        LockHandle next = client().acquire(name, LockOptions.noWait());
        h.close();
        assertThat(next.isValid()).isTrue();
        assertThat(client().tryAcquire(name)).isEmpty();
    }

    @Test
    @DisplayName("forceUnlock frees anyone's hold and wakes a waiter")
    void forceUnlockFreesAndWakes() throws Exception {
        assume(Capability.FORCE_RELEASE);
        String name = name();
        Duration longLease = scaled(Duration.ofSeconds(30));
        DistributedLock holder = client(longLease, e -> {}).getLock(name);
        holder.lock();
        DistributedLock waiter = client(longLease, e -> {}).getLock(name);
        AtomicLong acquiredAt = new AtomicLong();
        Thread t = start("waiter", () -> {
            waiter.lock();
            acquiredAt.set(System.nanoTime());
        });
        Thread.sleep(scaled(Duration.ofMillis(300)).toMillis());
        long forced = System.nanoTime();
        assertThat(client().getLock(name).forceUnlock()).isTrue();
        t.join(scaled(Duration.ofSeconds(5)).toMillis());
        assertThat(acquiredAt.get()).as("the waiter acquired").isNotZero();
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - forced))
                .isLessThan(scaled(Duration.ofSeconds(2)).toMillis());
        assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    @DisplayName("forceUnlock of a free lock returns false")
    void forceUnlockOfAFreeLock() {
        assume(Capability.FORCE_RELEASE);
        assertThat(client().getLock(name()).forceUnlock()).isFalse();
    }

    @Test
    @DisplayName("isLocked sees a hold from any client")
    void isLockedSeesAnyHold() {
        assume(Capability.INSPECTION);
        String name = name();
        DistributedLock observer = client().getLock(name);
        assertThat(observer.isLocked()).isFalse();
        DistributedLock lock = client().getLock(name);
        lock.lock();
        assertThat(observer.isLocked()).isTrue();
        lock.unlock();
        assertThat(observer.isLocked()).isFalse();
    }
}
