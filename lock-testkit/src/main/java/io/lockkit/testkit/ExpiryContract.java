package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Lease expiry" ({@link LockContractTest.Expiry}): a lapsed lease lets another client in, on
 * time, and the old holder is told.
 */
abstract class ExpiryContract extends ContractGroup {

    ExpiryContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("a lapsed lease lets another client in")
    void lapsedLeaseLetsAnotherClientIn() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        DistributedLock a = client().getLock(name);
        // From before the lock call: the lease may begin on the backend any time before lock()
        // returns, and a slow return must not make a correct provider look early.
        long start = System.nanoTime();
        a.lock(scaled(Duration.ofMillis(500)));
        assertThat(client().getLock(name).tryLock(scaled(Duration.ofSeconds(5)), null))
                .isTrue();
        assertThat(millisSince(start))
                .as("waited for the lease")
                .isGreaterThanOrEqualTo(scaled(Duration.ofMillis(300)).toMillis());
    }

    @Test
    @DisplayName("the old holder's unlock throws LockLostException and leaves the new holder's lock alone")
    void oldHoldersUnlockIsReportedAndHarmless() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        DistributedLock a = client().getLock(name);
        a.lock(scaled(Duration.ofMillis(400)));
        DistributedLock b = client().getLock(name);
        assertThat(b.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
        assertThatThrownBy(a::unlock)
                .isInstanceOf(LockLostException.class)
                .satisfies(e -> assertThat(((LockLostException) e).lockName()).isEqualTo(name));
        assertThat(b.isHeldByCurrentThread()).isTrue();
        assertThat(client().getLock(name).tryLock())
                .as("a third client after the old holder's unlock")
                .isFalse();
        b.unlock();
    }

    @Test
    @DisplayName("a handle whose lease ran out is invalid and its release throws LockLostException")
    void expiredHandleIsInvalid() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
        assertThat(h.isValid()).isTrue();
        assertThat(h.remainingLease()).isPositive().isLessThanOrEqualTo(scaled(Duration.ofMillis(300)));
        await().atMost(scaled(Duration.ofSeconds(3))).until(() -> !h.isValid());
        assertThat(h.remainingLease()).isZero();
        assertThatThrownBy(h::release).isInstanceOf(LockLostException.class);
    }

    @Test
    @DisplayName("an extended lease outlives its first length")
    void extendedLeaseOutlivesItsFirstLength() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofMillis(600))));
        h.extend(scaled(Duration.ofSeconds(5)));
        Thread.sleep(scaled(Duration.ofMillis(1200)).toMillis()); // past the first lease, on the backend's clock
        assertThat(h.isValid()).isTrue();
        assertThat(client().tryAcquire(name)).isEmpty();
        h.release();
    }

    @Test
    @DisplayName("a lapsed lease frees the lock on time: a 500 ms lease is free for others well within 2.5 s")
    void lapsedLeaseEndsOnTime() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        DistributedLock lock = client().getLock(name);
        DistributedLockFactory other = client(); // made before the clock starts: a new client may connect slowly
        long start = System.nanoTime();
        lock.lock(scaled(Duration.ofMillis(500)));
        freeForOtherWithin(other, name, Duration.ofMillis(2500), start, "the lock free after its 500 ms lease");
    }

    @Test
    @DisplayName("a renewal sets the length asked for: a lease cut to 500 ms is free for others well within 2.5 s")
    void renewalSetsTheLengthAskedFor() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofSeconds(20))));
        DistributedLockFactory other = client(); // made before the clock starts: a new client may connect slowly
        long start = System.nanoTime();
        h.extend(scaled(Duration.ofMillis(500)));
        freeForOtherWithin(
                other, name, Duration.ofMillis(2500), start, "the lock free after its lease was renewed to 500 ms");
    }

    @Test
    @DisplayName("a reentrant acquisition with a shorter lease never shortens the current one")
    void reentrantAcquisitionNeverShortensTheLease() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        DistributedLock lock = client().getLock(name);
        lock.lock(scaled(Duration.ofSeconds(20)));
        lock.lock(scaled(Duration.ofMillis(300)));
        Thread.sleep(scaled(Duration.ofSeconds(1)).toMillis()); // past the shorter lease, on the backend's clock
        assertThat(client().getLock(name).tryLock())
                .as("another client, past the shorter lease")
                .isFalse();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThatCode(() -> {
                    lock.unlock();
                    lock.unlock();
                })
                .doesNotThrowAnyException();
    }

    @Test
    @DisplayName("a reentrant acquisition with a longer lease lengthens the current one")
    void reentrantAcquisitionWithALongerLeaseLengthensIt() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        DistributedLockFactory client = client();
        DistributedLockFactory other = client();
        // The reentrant acquisition must come well within the first lease, or it takes a lapsed lock
        // anew and proves nothing: on a machine too busy for that, a round on a new name starts
        // again with a lease twice as long.
        Duration first = scaled(Duration.ofMillis(400));
        String name = name();
        DistributedLock lock = client.getLock(name);
        for (int round = 1; !reenteredWithin(lock, first); round++) {
            assertThat(round)
                    .as("rounds too slow for a first lease of %s", first)
                    .isLessThan(4);
            first = first.multipliedBy(2);
            name = name();
            lock = client.getLock(name);
        }
        Thread.sleep(first.multipliedBy(3).toMillis()); // past the first lease, on the backend's clock
        assertThat(other.getLock(name).tryLock())
                .as("another client, past the first lease")
                .isFalse();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        DistributedLock held = lock;
        assertThatCode(() -> {
                    held.unlock();
                    held.unlock();
                })
                .doesNotThrowAnyException();
    }

    /**
     * Locks {@code lock} with {@code first}, then again with a 20 s lease; whether the second came
     * within half the first lease (else both holds are let go).
     */
    private boolean reenteredWithin(DistributedLock lock, Duration first) {
        long start = System.nanoTime();
        lock.lock(first);
        lock.lock(scaled(Duration.ofSeconds(20)));
        if (millisSince(start) < first.toMillis() / 2 && lock.getHoldCount() == 2) {
            return true;
        }
        for (int i = 0; i < 2; i++) {
            try {
                lock.unlock();
            } catch (IllegalMonitorStateException e) {
                // the first hold had lapsed before the second lock
            }
        }
        return false;
    }

    @Test
    @DisplayName("extending a lapsed lease throws LockLostException")
    void extendingALapsedLeaseThrows() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        LockHandle h = client().acquire(name(), leaseOf(scaled(Duration.ofMillis(200))));
        await().atMost(scaled(Duration.ofSeconds(3))).until(() -> !h.isValid());
        assertThatThrownBy(() -> h.extend(Duration.ofSeconds(5))).isInstanceOf(LockLostException.class);
    }

    @Test
    @DisplayName(
            "a 30-day lease, a renewal to 30 days and the longest lease allowed last as long as asked: leases are not kept in 32-bit milliseconds, nor clamped")
    void longLeasesLastAsLongAsAsked() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        DistributedLockFactory holder = client();
        DistributedLockFactory other = client();
        Duration month = Duration.ofDays(30); // 2,592,000,000 ms: more than a signed 32-bit count of them
        String leased = name();
        String renewed = name();
        String longest = name();
        LockHandle monthLong = holder.acquire(leased, leaseOf(month));
        LockHandle extended = holder.acquire(renewed, leaseOf(scaled(Duration.ofSeconds(20))));
        extended.extend(month);
        LockHandle century = holder.acquire(longest, leaseOf(LockOptions.MAX_DURATION));
        for (String name : List.of(leased, renewed, longest)) {
            assertThat(other.tryAcquire(name)).as("another client on %s", name).isEmpty();
        }
        if (has(Capability.INSPECTION)) {
            assertThat(other.operations().inspect(leased).orElseThrow().leaseLeft())
                    .as("lease left of a %s lease", month)
                    .isGreaterThan(month.minusDays(1));
            assertThat(other.operations().inspect(renewed).orElseThrow().leaseLeft())
                    .as("lease left after a renewal to %s", month)
                    .isGreaterThan(month.minusDays(1));
            assertThat(other.operations().inspect(longest).orElseThrow().leaseLeft())
                    .as("lease left of a %s lease", LockOptions.MAX_DURATION)
                    .isGreaterThan(LockOptions.MAX_DURATION.minusDays(1));
        }
        for (LockHandle h : List.of(monthLong, extended, century)) {
            assertThatCode(h::release).doesNotThrowAnyException();
        }
    }

    @Test
    @DisplayName(
            "a hold is never valid on its client once another client has the lock: a lease of 1.999 ms is not cut to whole milliseconds")
    void holdIsNeverValidOnceAnotherClientHasTheLock() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        DistributedLockFactory holder = client();
        DistributedLockFactory other = client();
        // Not scaled: the fraction of a millisecond is the point. A backend whose lease runs shorter
        // than asked frees the lock while the holder's client, counting the lease from when it sent
        // the request, still calls the hold valid; another client spinning on the lock catches that.
        Duration lease = Duration.ofNanos(1_999_000);
        int checked = 0;
        for (int round = 0; round < 100; round++) {
            String name = name() + ":" + round;
            // An answer that comes back after its lease ran out hands out nothing (the hold was
            // lost already): a round trip slower than the lease, which this round cannot use.
            Optional<LockHandle> held = holder.tryAcquire(name, leaseOf(lease));
            if (held.isEmpty()) {
                continue;
            }
            checked++;
            LockHandle h = held.get();
            long giveUp = System.nanoTime() + scaled(Duration.ofSeconds(3)).toNanos();
            Optional<LockHandle> taken = other.tryAcquire(name);
            while (taken.isEmpty()) {
                assertThat(System.nanoTime() - giveUp)
                        .as("round %d: the lease has not lapsed", round)
                        .isNegative();
                taken = other.tryAcquire(name);
            }
            boolean stillValid = h.isValid();
            taken.get().release();
            assertThat(stillValid)
                    .as(
                            "round %d: the holder's client calls a hold of %s valid after another client took the lock",
                            round, lease)
                    .isFalse();
        }
        int rounds = checked;
        assumeTrue(
                rounds >= 10,
                () -> "only " + rounds + " of 100 acquisitions with a lease of " + lease
                        + " came back before their lease ran out: the backend answers too slowly to check this here");
    }
}
