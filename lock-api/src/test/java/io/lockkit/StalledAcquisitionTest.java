package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An attempt whose answer comes back after its own lease ran out (a backend that stalled, a lock
 * wait on the server): acquire never hands out the hold as it is. A renewal asks the backend
 * whether it still has it; if so, the hold is handed out with the renewal's lease, else the wait
 * tries again within its time or reports that it did not get the lock. Nothing is released to
 * give the hold back: a late release could free a newer hold of the same owner. The stall is the
 * fake ticker moving while the backend answers, so nothing sleeps; the backend runs on the same
 * ticker, so a stall after it handled the request lapses its hold there too, and a stall before
 * (the request held up on its way) does not.
 */
class StalledAcquisitionTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    /** How many of the next attempts stall, and whether on the way in (before the backend handles them). */
    private final AtomicInteger stalls = new AtomicInteger();

    private volatile boolean stallBefore;
    private final AtomicInteger renewalStalls = new AtomicInteger();
    private final AtomicInteger failingRenewals = new AtomicInteger();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    /** What happens elsewhere while an answer is held up. */
    private volatile Runnable duringStall = () -> {};

    private final class Stalling extends ForwardingLockProvider {
        private final Duration stall;

        Stalling(Duration stall) {
            super(backend);
            this.stall = stall;
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            boolean stalled = stalls.getAndDecrement() > 0;
            if (stalled && stallBefore) {
                ticker.advance(stall);
            }
            Acquisition a = super.tryAcquire(request);
            if (stalled && !stallBefore) {
                ticker.advance(stall);
                duringStall.run();
            }
            calls.add("acquire " + (a.isAcquired() ? "acquired" : "busy"));
            return a;
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            if (failingRenewals.getAndDecrement() > 0) {
                calls.add("renew failed");
                throw new BackendUnavailableException(renewals.get(0).name(), "the renewal's answer was lost", null);
            }
            boolean stalled = renewalStalls.getAndDecrement() > 0;
            if (stalled) {
                ticker.advance(Duration.ofMillis(500)); // on the way in, within the backend's lease
            }
            List<Renewal> gone = super.renew(renewals);
            if (stalled) {
                ticker.advance(Duration.ofMillis(600)); // on the way back: 1.1 s in all
            }
            calls.add("renew " + (gone.isEmpty() ? "kept" : "gone"));
            return gone;
        }

        @Override
        public Release release(String name, String owner) {
            Release r = super.release(name, owner);
            calls.add("release " + r.outcome());
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

    private static LockOptions waiting(Duration wait) {
        return LockOptions.builder().lease(LEASE).waitAtMost(wait).build();
    }

    @Test
    @DisplayName(
            "a hold the backend lost during the stall is not handed out: the wait tries again and wins a valid one")
    void aWaitTriesAgainWhenTheHoldItWonLapsed() throws InterruptedException {
        stalls.set(1);
        DistributedLockFactory f = client(LEASE.plusMillis(1));
        try (LockHandle h = f.acquire("stalled", waiting(Duration.ofSeconds(10)))) {
            assertThat(h.isValid()).as("the hold handed out").isTrue();
            assertThat(h.remainingLease()).isEqualTo(LEASE);
            assertThat(calls).containsExactly("acquire acquired", "renew gone", "acquire acquired");
        }
    }

    @Test
    @DisplayName("a hold the backend still has is confirmed by one renewal and handed out with its lease")
    void aHoldTheBackendStillHasIsConfirmed() throws InterruptedException {
        stalls.set(1);
        stallBefore = true;
        DistributedLockFactory f = client(LEASE.plusMillis(1));
        try (LockHandle h = f.acquire("stalled-kept", waiting(Duration.ofSeconds(10)))) {
            assertThat(h.isValid()).isTrue();
            assertThat(h.remainingLease()).isEqualTo(LEASE);
            assertThat(calls).containsExactly("acquire acquired", "renew kept");
            assertThat(backend.inspect("stalled-kept"))
                    .hasValueSatisfying(s -> assertThat(s.fencingToken()).isEqualTo(h.fencingToken()));
        }
    }

    @Test
    @DisplayName("a thread's lock tries again too")
    void aThreadLockTriesAgainToo() throws InterruptedException {
        stalls.set(1);
        DistributedLock lock = client(LEASE.plusMillis(1)).getLock("stalled-thread");
        assertThat(lock.tryLock(Duration.ofSeconds(10), LEASE)).isTrue();
        try {
            assertThat(lock.remainingLease()).isEqualTo(LEASE);
        } finally {
            lock.unlock();
        }
        assertThat(calls).doesNotContain("release NOT_HELD");
    }

    @Test
    @DisplayName("an attempt without a wait reports the lock not acquired when its hold lapsed")
    void anAttemptWithoutWaitReportsTheLockNotAcquired() throws InterruptedException {
        stalls.set(1);
        Optional<LockHandle> h = client(LEASE)
                .tryAcquire(
                        "stalled-once",
                        LockOptions.builder().lease(LEASE).noWait().build());
        assertThat(h).as("a hold whose lease ran out as it was won").isEmpty();
        assertThat(backend.inspect("stalled-once")).isEmpty();
        assertThat(calls).containsExactly("acquire acquired", "renew gone");
    }

    @Test
    @DisplayName("a wait whose time ran out while another client took the lock reports the timeout")
    void anotherClientTookTheLockDuringTheStall() throws InterruptedException {
        LocalLockProvider other = backend.newClient();
        duringStall = () -> assertThat(other.tryAcquire(
                                new LockRequest("stalled-late", "other:1", Duration.ofSeconds(30), Duration.ZERO))
                        .isAcquired())
                .as("the lease ran out during the stall, and another client took the lock")
                .isTrue();
        stalls.set(1);
        DistributedLockFactory f = client(LEASE.plusSeconds(1));
        Optional<LockHandle> h = f.tryAcquire("stalled-late", waiting(Duration.ofMillis(500)));
        assertThat(h).as("two holders otherwise").isEmpty();
        assertThat(backend.inspect("stalled-late"))
                .hasValueSatisfying(st -> assertThat(st.holdCounts()).containsOnlyKeys("other:1"));
    }

    @Test
    @DisplayName("a renewal that comes back late after the deadline ends in a timeout, and the thread's next lock"
            + " releases what the backend kept first")
    void aLateRenewalAfterTheDeadline() throws InterruptedException {
        stalls.set(1);
        stallBefore = true;
        renewalStalls.set(1);
        DistributedLock lock = client(LEASE.plusMillis(1)).getLock("stalled-renewal");
        assertThat(lock.tryLock(Duration.ofMillis(1500), LEASE)).isFalse();
        assertThat(calls).containsExactly("acquire acquired", "renew kept");
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        calls.clear();
        assertThat(lock.tryLock(Duration.ofSeconds(3), LEASE)).isTrue();
        lock.unlock();
        assertThat(calls).containsExactly("release RELEASED", "acquire acquired", "release RELEASED");
    }

    @Test
    @DisplayName("a renewal that fails ends the wait with the failure; nothing is released")
    void aFailedRenewalEndsTheWait() {
        stalls.set(1);
        failingRenewals.set(1);
        DistributedLock lock = client(LEASE.plusMillis(1)).getLock("stalled-renewal-failed");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(10), LEASE))
                .isInstanceOf(BackendUnavailableException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(calls).containsExactly("acquire acquired", "renew failed");
    }

    @Test
    @DisplayName("a reentrant acquisition that stalled is not renewed: the outer hold's longer lease stands")
    void aReentrantAcquisitionThatStalledKeepsTheOuterLease() throws InterruptedException {
        DistributedLockFactory f = client(LEASE.plusMillis(1));
        DistributedLock lock = f.getLock("stalled-reentry");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(30))).isTrue();
        stalls.set(1);
        assertThat(lock.tryLock(Duration.ofSeconds(10), LEASE)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(calls).noneMatch(c -> c.startsWith("renew"));
        assertThat(backend.inspect("stalled-reentry")).hasValueSatisfying(s -> {
            assertThat(s.holdCounts()).containsValue(2);
            assertThat(s.remainingLease()).isGreaterThan(Duration.ofSeconds(20));
        });
        lock.unlock();
        lock.unlock();
        assertThat(backend.inspect("stalled-reentry")).isEmpty();
    }
}
