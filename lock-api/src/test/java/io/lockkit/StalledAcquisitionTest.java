package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An attempt whose answer comes back after its own lease ran out (a backend that stalled, a lock
 * wait on the server): the hold it won is lost already, so acquire never hands it out. It gives it
 * back and tries again within its wait, or reports that it did not get the lock. The stall is the
 * fake ticker moving past the lease while the backend answers, so nothing sleeps.
 */
class StalledAcquisitionTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final AtomicInteger stalls = new AtomicInteger();
    private final List<String> releases = new CopyOnWriteArrayList<>();
    /** What happens elsewhere while an answer is held up. */
    private volatile Runnable duringStall = () -> {};
    /** Releases that fail (their answer lost: they may run later) before the others go through. */
    private final AtomicInteger failingReleases = new AtomicInteger();

    /** Answers the first {@link #stalls} attempts after {@code stall} on the ticker. */
    private final class Stalling extends ForwardingLockProvider {
        private final Duration stall;

        Stalling(Duration stall) {
            super(backend);
            this.stall = stall;
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            Acquisition a = super.tryAcquire(request);
            if (stalls.getAndDecrement() > 0) {
                ticker.advance(stall);
                duringStall.run();
            }
            return a;
        }

        @Override
        public Release release(String name, String owner) {
            if (failingReleases.getAndDecrement() > 0) {
                throw new BackendUnavailableException(name, "the release's answer was lost", null);
            }
            Release r = super.release(name, owner);
            releases.add(name + " " + r.outcome());
            return r;
        }
    }

    private DistributedLockFactory locks;

    private DistributedLockFactory client(Duration stall) {
        locks = DistributedLockFactory.builder(new Stalling(stall))
                .ticker(ticker)
                .build();
        return locks;
    }

    @AfterEach
    void close() {
        if (locks != null) {
            locks.close();
        }
    }

    private static LockOptions lease(LockOptions.Builder b) {
        return b.lease(LEASE).build();
    }

    @Test
    void aWaitTriesAgainWhenTheHoldItWonRanOutBeforeTheAnswerCame() throws InterruptedException {
        stalls.set(1);
        DistributedLockFactory f = client(LEASE.plusMillis(1));
        try (LockHandle h = f.acquire("stalled", lease(LockOptions.builder().waitAtMost(Duration.ofSeconds(10))))) {
            assertThat(h.isValid()).as("the hold handed out").isTrue();
            assertThat(h.remainingLease()).isEqualTo(LEASE);
            assertThat(releases).as("the lapsed hold given back").containsExactly("stalled NOT_HELD");
        }
    }

    @Test
    void aThreadLockTriesAgainToo() throws InterruptedException {
        stalls.set(1);
        DistributedLock lock = client(LEASE.plusMillis(1)).getLock("stalled-thread");
        assertThat(lock.tryLock(Duration.ofSeconds(10), LEASE)).isTrue();
        try {
            assertThat(lock.remainingLease()).isEqualTo(LEASE);
        } finally {
            lock.unlock();
        }
    }

    @Test
    void anAttemptWithoutWaitReportsTheLockNotAcquired() throws InterruptedException {
        stalls.set(1);
        DistributedLockFactory f = client(LEASE);
        Optional<LockHandle> h =
                f.tryAcquire("stalled-once", lease(LockOptions.builder().noWait()));
        assertThat(h).as("a hold whose lease ran out as it was won").isEmpty();
        assertThat(backend.inspect("stalled-once")).as("given back").isEmpty();
    }

    @Test
    void aWaitWhoseTimeRanOutDuringTheStallWhileAnotherClientTookTheLockReportsTheTimeout()
            throws InterruptedException {
        LocalLockProvider other = backend.newClient();
        duringStall = () -> assertThat(other.tryAcquire(
                                new LockRequest("stalled-late", "other:1", Duration.ofSeconds(30), Duration.ZERO))
                        .isAcquired())
                .as("the lease ran out during the stall, and another client took the lock")
                .isTrue();
        stalls.set(1);
        DistributedLockFactory f = client(LEASE.plusSeconds(1));
        Optional<LockHandle> h =
                f.tryAcquire("stalled-late", lease(LockOptions.builder().waitAtMost(Duration.ofMillis(500))));
        assertThat(h).as("two holders otherwise").isEmpty();
        assertThat(backend.inspect("stalled-late"))
                .hasValueSatisfying(st -> assertThat(st.holdCounts()).containsOnlyKeys("other:1"));
    }

    @Test
    void aWaitWhoseGivingBackFailedEndsWithTheFailureRatherThanTryAgain() {
        // The release may still run on the backend later; a new hold of the same owner (a thread's)
        // taken meanwhile would be the one it frees.
        stalls.set(1);
        failingReleases.set(1);
        DistributedLock lock = client(LEASE.plusMillis(1)).getLock("stalled-give-back");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(10), LEASE))
                .isInstanceOf(BackendUnavailableException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void aReentrantAcquisitionThatStalledIsCountedOnceOnTheBackend() throws InterruptedException {
        DistributedLockFactory f = client(LEASE.plusMillis(1));
        DistributedLock lock = f.getLock("stalled-reentry");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(30))).isTrue();
        stalls.set(1);
        assertThat(lock.tryLock(Duration.ofSeconds(10), LEASE)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(backend.inspect("stalled-reentry"))
                .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsValue(2));
        lock.unlock();
        lock.unlock();
        assertThat(backend.inspect("stalled-reentry")).isEmpty();
    }
}
