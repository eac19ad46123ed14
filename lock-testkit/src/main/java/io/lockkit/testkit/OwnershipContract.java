package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

    @Test
    @DisplayName("the release of a lapsed hold leaves alone the hold that another owner of the same client took since")
    void releaseOfALapsedHoldLeavesTheSameClientsNextHolderAlone() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        DistributedLockFactory client = client();
        DistributedLockFactory other = client();
        LockHandle first = client.acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
        LockHandle second = client.acquire(name, waitFor(Duration.ofSeconds(5)));
        assertThatThrownBy(first::release).as("the release of the lapsed hold").isInstanceOf(LockLostException.class);
        assertThat(second.isValid()).isTrue();
        assertThat(other.tryAcquire(name))
                .as("another client, after the lapsed hold's release")
                .isEmpty();
        assertThatCode(second::release).doesNotThrowAnyException();
    }

    @Test
    @DisplayName(
            "owner ids are told apart whole: one that starts with the holder's, that the holder's starts with, or that shares its client part is another owner")
    void ownerIdsAreToldApartWhole() {
        LockProvider p = closeAfterTest(provider());
        String client = RenewalContract.newClient();
        // The longest owner ids the core makes: a 13-character client id and a thread id of 19 digits.
        String longClient = "z".repeat(13 - client.length()) + client;
        List<List<String>> pairs = List.of(
                List.of(client + ":h1", client + ":h10"),
                List.of(client + ":h10", client + ":h1"),
                List.of(client + ":t1", client + ":h1"),
                List.of(longClient + ":t9223372036854775806", longClient + ":t9223372036854775807"));
        Duration lease = watchdogLease();
        for (List<String> pair : pairs) {
            String name = name();
            String holder = pair.get(0);
            String other = pair.get(1);
            assertThat(p.tryAcquire(RenewalContract.request(name, holder, lease))
                            .isAcquired())
                    .as("%s takes a free lock", holder)
                    .isTrue();
            assertThat(p.tryAcquire(RenewalContract.request(name, other, lease)).isAcquired())
                    .as("%s takes the lock %s holds", other, holder)
                    .isFalse();
            assertThat(p.release(name, other).outcome())
                    .as("%s releases the lock %s holds", other, holder)
                    .isEqualTo(Release.Outcome.NOT_HELD);
            LockProvider.Renewal renewal = new LockProvider.Renewal(name, other, lease);
            assertThat(p.renew(List.of(renewal)))
                    .as("%s renews the lock %s holds", other, holder)
                    .containsExactly(renewal);
            if (has(Capability.INSPECTION)) {
                assertThat(p.inspect(name).map(LockProvider.LockState::holdCounts))
                        .as("the holder after %s's calls", other)
                        .contains(Map.of(holder, 1));
            }
            assertThat(p.release(name, holder).outcome())
                    .as("%s releases its lock", holder)
                    .isEqualTo(Release.Outcome.RELEASED);
        }
    }
}
