package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Inspection through the factory" ({@link LockContractTest.OperatorInspection}): the factory's
 * inspect and forceRelease, as an operator uses them.
 */
abstract class OperatorInspectionContract extends ContractGroup {

    OperatorInspectionContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void requireInspection() {
        assume(Capability.INSPECTION);
    }

    private LockInfo inspected(DistributedLockFactory observer, String name) {
        return observer.operations()
                .inspect(name)
                .orElseThrow(() -> new AssertionError("a held lock inspected as free: " + name));
    }

    @Test
    @DisplayName(
            "inspect shows the holder, its hold count after reentry, its fencing token and a lease within bounds; empty once released")
    void inspectShowsHolderCountTokenAndLease() throws Exception {
        String name = name();
        DistributedLockFactory holder = client();
        DistributedLockFactory observer = client();
        DistributedLock lock = holder.getLock(name);
        lock.lock();
        lock.lock();
        LockInfo info = inspected(observer, name);
        assertThat(info.name()).isEqualTo(name);
        assertThat(info.holdCount()).as("hold count after one reentry").isEqualTo(2);
        assertThat(info.owner()).as("owner id").startsWith(info.clientId() + ":");
        assertThat(info.fencingToken())
                .as("token of the holder")
                .isEqualTo(has(Capability.FENCING_TOKENS) ? lock.fencingToken() : 0L);
        assertThat(info.leaseLeft())
                .as("lease left of a %s watchdog lease", watchdogLease())
                .isPositive()
                .isLessThanOrEqualTo(watchdogLease());
        assertThat(info.waiters()).as("waiters (-1: unknown)").isIn(-1, 0);
        lock.unlock();
        assertThat(inspected(observer, name).holdCount())
                .as("hold count after one release")
                .isEqualTo(1);
        lock.unlock();
        assertThat(observer.operations().inspect(name))
                .as("after the last release")
                .isEmpty();
        assertThat(observer.operations().inspect(name() + ":never-used"))
                .as("a name never used")
                .isEmpty();
    }

    @Test
    @DisplayName("inspect tells holders apart: one client id per factory, one owner per thread or handle")
    void inspectTellsHoldersApart() throws Exception {
        DistributedLockFactory a = client();
        DistributedLockFactory b = client();
        String byThread = name();
        String byHandle = name();
        String byOther = name();
        DistributedLock lock = a.getLock(byThread);
        lock.lock();
        LockHandle handle = a.acquire(byHandle, LockOptions.noWait());
        LockHandle other = b.acquire(byOther, LockOptions.noWait());
        LockInfo thread = inspected(b, byThread);
        LockInfo handled = inspected(b, byHandle);
        LockInfo elsewhere = inspected(a, byOther);
        assertThat(handled.clientId())
                .as("client ids of two holds of one factory")
                .isEqualTo(thread.clientId());
        assertThat(handled.owner()).as("owners of a thread hold and a handle").isNotEqualTo(thread.owner());
        assertThat(elsewhere.clientId()).as("client ids of two factories").isNotEqualTo(thread.clientId());
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(handled.fencingToken()).isEqualTo(handle.fencingToken());
            assertThat(elsewhere.fencingToken()).isEqualTo(other.fencingToken());
        }
        if (has(Capability.EXPLICIT_LEASE)) {
            String leased = name();
            Duration lease = scaled(Duration.ofSeconds(20));
            a.acquire(leased, leaseOf(lease));
            assertThat(inspected(b, leased).leaseLeft())
                    .as("lease left of a fresh %s lease", lease)
                    .isGreaterThan(lease.dividedBy(2))
                    .isLessThanOrEqualTo(lease);
        }
    }

    @Test
    @DisplayName(
            "inspect names the holder, not the owner that asked last: contenders that were refused leave it unchanged")
    void inspectNamesTheHolderNotTheLatestContender() throws Exception {
        String name = name();
        DistributedLockFactory holding = client();
        DistributedLockFactory contending = client();
        DistributedLockFactory observer = client();
        LockHandle held = holding.acquire(name, LockOptions.noWait());
        LockInfo before = inspected(observer, name);
        assertThat(contending.tryAcquire(name))
                .as("a contender of another client")
                .isEmpty();
        assertThat(contending.tryAcquire(name, waitFor(Duration.ofMillis(200))))
                .as("a waiting contender of another client")
                .isEmpty();
        assertThat(holding.tryAcquire(name))
                .as("a contender of the holder's client")
                .isEmpty();
        LockInfo after = inspected(observer, name);
        assertThat(after.owner()).as("the holder named after three contenders").isEqualTo(before.owner());
        assertThat(after.clientId()).isEqualTo(before.clientId());
        assertThat(after.holdCount()).isEqualTo(1);
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(after.fencingToken()).isEqualTo(held.fencingToken());
        }
        held.release();
    }

    @Test
    @DisplayName("inspect counts the owners waiting, as they come and go (when the backend can tell)")
    void inspectCountsWaiters() throws Exception {
        String name = name();
        DistributedLockFactory holder = client();
        LockHandle held = holder.acquire(name, LockOptions.noWait());
        DistributedLockFactory observer = client();
        LockInfo first = inspected(observer, name);
        assumeTrue(first.waitersKnown(), "the provider cannot tell how many wait");
        assertThat(first.waiters()).as("waiters before anyone waits").isZero();
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicInteger served = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            DistributedLockFactory waiter = client();
            start("waiter-" + i, () -> {
                try {
                    LockHandle h = waiter.acquire(name, waitFor(Duration.ofSeconds(30)));
                    served.incrementAndGet();
                    letGo.await();
                    h.release();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        await("two waiters seen by inspect")
                .atMost(scaled(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> inspected(observer, name).waiters() == 2);
        held.release();
        await("the lock with the next waiter, one still waiting")
                .atMost(scaled(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> observer.operations()
                        .inspect(name)
                        .filter(i -> !i.clientId().equals(first.clientId()) && i.waiters() == 1)
                        .isPresent());
        letGo.countDown();
        await("both waiters served and gone")
                .atMost(scaled(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(20))
                .until(() ->
                        served.get() == 2 && observer.operations().inspect(name).isEmpty());
    }

    @Test
    @DisplayName("forceRelease frees a lock whoever holds it and answers whether it was held")
    void forceReleaseFreesTheLock() throws Exception {
        assume(Capability.FORCE_RELEASE);
        String name = name();
        LockHandle h = client().acquire(name, LockOptions.noWait());
        DistributedLockFactory operator = client();
        assertThat(operator.operations().forceRelease(name))
                .as("force release of a held lock")
                .isTrue();
        assertThat(operator.operations().inspect(name))
                .as("after the force release")
                .isEmpty();
        assertThat(operator.operations().forceRelease(name))
                .as("force release of a free lock")
                .isFalse();
        await("the holder told of its loss")
                .atMost(scaled(Duration.ofSeconds(10)))
                .until(() -> !h.isValid());
    }

    @Test
    @DisplayName("inspect of a bad name is refused with IllegalArgumentException")
    @SuppressWarnings("NullAway") // passes null on purpose
    void inspectRefusesBadNames() {
        DistributedLockFactory c = client();
        assertThatThrownBy(() -> c.operations().inspect(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> c.operations().inspect(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
    }
}
