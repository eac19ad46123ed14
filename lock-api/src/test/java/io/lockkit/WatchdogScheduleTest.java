package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the watchdog renews and when it reports a loss, to the nanosecond, on a fake clock and a
 * scheduler that runs only when the test moves the clock: renewal at the interval and not before,
 * batching within a quarter interval (at most a second), retries of a failed renewal a quarter
 * interval apart (at least 10 ms) up to the deadline, and losses exactly at the deadline.
 */
class WatchdogScheduleTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration INTERVAL = LEASE.dividedBy(3);

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final FailingRenewals provider = new FailingRenewals(backend).on(ticker);
    private final List<LockLostException> losses = new CopyOnWriteArrayList<>();
    private final DistributedLockFactory locks =
            factory(LockOptions.builder().watchdogLease(LEASE).build());

    private DistributedLockFactory factory(LockOptions defaults) {
        return DistributedLockFactory.builder(provider)
                .ticker(ticker)
                .scheduler(scheduler)
                .defaultOptions(defaults)
                .onLockLost(losses::add)
                .subscriptionLinger(Duration.ZERO)
                .build();
    }

    @AfterEach
    void close() {
        locks.close();
    }

    /** Records renew calls; fails them while {@link #failing} is set. */
    static final class FailingRenewals extends ForwardingLockProvider {
        final List<List<Renewal>> calls = new CopyOnWriteArrayList<>();
        final List<Long> callTimes = new CopyOnWriteArrayList<>();
        volatile boolean failing;
        private volatile FakeTicker clock;

        FailingRenewals on(FakeTicker t) {
            this.clock = t;
            return this;
        }

        FailingRenewals(LocalLockProvider delegate) {
            super(delegate);
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            calls.add(List.copyOf(renewals));
            callTimes.add(clock.nanoTime());
            if (failing) {
                throw new BackendUnavailableException(renewals.get(0).name(), "renewal refused by the test", null);
            }
            return super.renew(renewals);
        }
    }

    private long millisSince(long startNanos, int call) {
        return Duration.ofNanos(provider.callTimes.get(call) - startNanos).toMillis();
    }

    @Test
    void aWatchdogHoldIsRenewedAtEachIntervalAndNotBefore() throws Exception {
        long start = ticker.nanoTime();
        LockHandle h = locks.acquire("wd:interval", LockOptions.noWait());

        scheduler.advance(INTERVAL.minusNanos(1));
        assertThat(provider.calls).as("renewals before the interval").isEmpty();
        scheduler.advance(Duration.ofNanos(1));
        assertThat(provider.calls).hasSize(1);
        assertThat(provider.calls.get(0)).extracting(Renewal::lease).containsExactly(LEASE);
        // The renewal sets the deadline a full lease from when it was sent.
        assertThat(h.remainingLease()).isEqualTo(LEASE);

        scheduler.advance(INTERVAL.minusNanos(1));
        assertThat(provider.calls).hasSize(1);
        scheduler.advance(Duration.ofNanos(1));
        assertThat(provider.calls).hasSize(2);
        assertThat(millisSince(start, 1)).isEqualTo(2 * INTERVAL.toMillis());
        assertThat(h.isValid()).isTrue();
        assertThat(losses).isEmpty();
    }

    @Test
    void holdsDueWithinAQuarterIntervalAreRenewedInOneCallAndLaterOnesSeparately() throws Exception {
        // Interval 10 s: the window is min(10 s / 4, 1 s) = 1 s.
        locks.acquire("wd:a", LockOptions.noWait());
        scheduler.advance(Duration.ofMillis(1000)); // due 1 s after a: inside the window
        locks.acquire("wd:b", LockOptions.noWait());
        scheduler.advance(Duration.ofMillis(1)); // due 1.001 s after a: outside
        locks.acquire("wd:c", LockOptions.noWait());

        scheduler.advance(INTERVAL.minusMillis(1001));
        assertThat(provider.calls).hasSize(1);
        assertThat(provider.calls.get(0)).extracting(Renewal::name).containsExactlyInAnyOrder("wd:a", "wd:b");
        scheduler.advance(Duration.ofMillis(1000));
        assertThat(provider.calls).hasSize(1);
        scheduler.advance(Duration.ofMillis(1));
        assertThat(provider.calls).hasSize(2);
        assertThat(provider.calls.get(1)).extracting(Renewal::name).containsExactly("wd:c");
    }

    @Test
    void theBatchWindowIsAQuarterOfAShortInterval() throws Exception {
        // Interval 400 ms: the window is 100 ms, not the 1 s cap.
        LockOptions shortLease = LockOptions.builder()
                .noWait()
                .watchdogLease(Duration.ofMillis(1200))
                .build();
        locks.acquire("wd:short-a", shortLease);
        scheduler.advance(Duration.ofMillis(100));
        locks.acquire("wd:short-b", shortLease);
        scheduler.advance(Duration.ofMillis(1));
        locks.acquire("wd:short-c", shortLease);

        scheduler.advance(Duration.ofMillis(299)); // a is due at 400 ms, b at 500, c at 501
        assertThat(provider.calls).hasSize(1);
        assertThat(provider.calls.get(0))
                .extracting(Renewal::name)
                .containsExactlyInAnyOrder("wd:short-a", "wd:short-b");
        scheduler.advance(Duration.ofMillis(100));
        assertThat(provider.calls).hasSize(1);
        scheduler.advance(Duration.ofMillis(1));
        assertThat(provider.calls).hasSize(2);
        assertThat(provider.calls.get(1)).extracting(Renewal::name).containsExactly("wd:short-c");
    }

    @Test
    void aBatchRenewingTwoOwnersOfOneNameLosesOnlyTheHoldTheBackendDropped() throws Exception {
        // An operator elsewhere frees the lock under one handle (so this factory is not told) and
        // another handle of the same factory takes it: the next renewal carries both holds of the
        // name, and only the first is lost.
        LockHandle dropped = locks.acquire("wd:pair", LockOptions.noWait());
        assertThat(backend.forceRelease("wd:pair")).isTrue();
        LockHandle current = locks.acquire("wd:pair", LockOptions.noWait());

        scheduler.advance(INTERVAL);
        assertThat(provider.calls).hasSize(1);
        assertThat(provider.calls.get(0))
                .extracting(Renewal::name)
                .as("one renewal of both holds")
                .containsExactly("wd:pair", "wd:pair");
        assertThat(losses).hasSize(1);
        assertThat(losses.get(0)).hasMessageContaining("no longer held by this owner");
        assertThat(dropped.isValid()).isFalse();
        assertThat(current.isValid()).isTrue();
        assertThat(current.remainingLease()).isEqualTo(LEASE);
    }

    @Test
    void aFailedRenewalIsRetriedEveryQuarterIntervalAndTheHoldIsLostExactlyAtItsDeadline() throws Exception {
        provider.failing = true;
        long start = ticker.nanoTime();
        LockHandle h = locks.acquire("wd:failing", LockOptions.noWait());

        scheduler.advance(LEASE.minusNanos(1));
        // At 10 s, then every 2.5 s: 10, 12.5, ... 27.5 s.
        assertThat(provider.calls).hasSize(8);
        for (int i = 0; i < 8; i++) {
            assertThat(millisSince(start, i)).as("ms of renew call %d", i).isEqualTo(10_000 + 2_500L * i);
        }
        assertThat(losses).isEmpty();
        assertThat(h.isValid()).isTrue();
        assertThat(h.remainingLease()).isEqualTo(Duration.ofNanos(1));

        scheduler.advance(Duration.ofNanos(1));
        assertThat(losses).hasSize(1);
        assertThat(losses.get(0)).hasMessageContaining("ran out before it could be renewed");
        assertThat(h.lost().toCompletableFuture()).isCompleted();
        assertThat(h.isValid()).isFalse();
        assertThatThrownBy(h::release).isSameAs(losses.get(0));
        scheduler.advance(LEASE);
        assertThat(provider.calls).as("no renewal after the loss").hasSize(8);
    }

    @Test
    void aFailedRenewalOfAVeryShortIntervalIsRetriedNoSoonerThanTenMilliseconds() throws Exception {
        provider.failing = true;
        long start = ticker.nanoTime();
        // Interval 20 ms: a quarter is 5 ms, below the 10 ms floor.
        locks.acquire(
                "wd:tight",
                LockOptions.builder()
                        .noWait()
                        .watchdogLease(Duration.ofMillis(100))
                        .renewalInterval(Duration.ofMillis(20))
                        .build());
        scheduler.advance(Duration.ofMillis(99));
        // At 20, 30, ... 90 ms.
        assertThat(provider.calls).hasSize(8);
        assertThat(millisSince(start, 0)).isEqualTo(20);
        assertThat(millisSince(start, 1)).isEqualTo(30);
        assertThat(millisSince(start, 7)).isEqualTo(90);
        assertThat(losses).isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(losses).hasSize(1);
    }

    @Test
    void aRenewalThatSucceedsAfterFailuresMovesTheDeadlineFromWhenItWasSent() throws Exception {
        provider.failing = true;
        LockHandle h = locks.acquire("wd:recovers", LockOptions.noWait());
        scheduler.advance(Duration.ofMillis(12_500)); // failed at 10 s and 12.5 s
        assertThat(provider.calls).hasSize(2);
        provider.failing = false;
        scheduler.advance(Duration.ofMillis(2_500)); // succeeds at 15 s
        assertThat(provider.calls).hasSize(3);
        assertThat(h.remainingLease()).isEqualTo(LEASE);
        // Back on the interval: next at 25 s.
        scheduler.advance(INTERVAL.minusNanos(1));
        assertThat(provider.calls).hasSize(3);
        scheduler.advance(Duration.ofNanos(1));
        assertThat(provider.calls).hasSize(4);
        assertThat(losses).isEmpty();
    }

    @Test
    void anExplicitLeaseIsReportedLostExactlyAtItsDeadlineAndNeverRenewed() throws Exception {
        LockHandle h = locks.acquire(
                "wd:explicit",
                LockOptions.builder().noWait().lease(Duration.ofSeconds(5)).build());
        scheduler.advance(Duration.ofSeconds(5).minusNanos(1));
        assertThat(losses).isEmpty();
        assertThat(h.isValid()).isTrue();
        scheduler.advance(Duration.ofNanos(1));
        assertThat(losses).extracting(LockLostException::lockName).containsExactly("wd:explicit");
        assertThat(provider.calls).isEmpty();
    }

    @Test
    void aShorterDeadlineArrivingAfterALongerOneMovesTheNextLookEarlier() throws Exception {
        locks.acquire("wd:long", LockOptions.noWait()); // next look at 10 s
        scheduler.advance(Duration.ofSeconds(1));
        LockHandle brief = locks.acquire(
                "wd:brief",
                LockOptions.builder().noWait().lease(Duration.ofMillis(500)).build());
        scheduler.advance(Duration.ofMillis(499));
        assertThat(losses).isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(losses).extracting(LockLostException::lockName).containsExactly("wd:brief");
        assertThat(brief.isValid()).isFalse();
        assertThat(provider.calls).isEmpty();
    }

    @Test
    void aLongerDeadlineArrivingAfterAShorterOneDoesNotPutOffTheEarlierLook() throws Exception {
        locks.acquire(
                "wd:brief-first",
                LockOptions.builder().noWait().lease(Duration.ofSeconds(2)).build());
        locks.acquire(
                "wd:long-second",
                LockOptions.builder().noWait().lease(Duration.ofSeconds(20)).build());
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(losses).extracting(LockLostException::lockName).containsExactly("wd:brief-first");
        scheduler.advance(Duration.ofSeconds(18));
        assertThat(losses).extracting(LockLostException::lockName).containsExactly("wd:brief-first", "wd:long-second");
    }

    @Test
    void extendingALeaseMovesItsLossToTheNewDeadline() throws Exception {
        LockHandle h = locks.acquire(
                "wd:extended",
                LockOptions.builder().noWait().lease(Duration.ofSeconds(5)).build());
        scheduler.advance(Duration.ofSeconds(1));
        h.extend(Duration.ofSeconds(2)); // earlier than the old 5 s: now due at 3 s
        scheduler.advance(Duration.ofSeconds(2).minusNanos(1));
        assertThat(losses).isEmpty();
        scheduler.advance(Duration.ofNanos(1));
        assertThat(losses).hasSize(1);
    }

    @Test
    void aRenewalThatFindsOneHoldGoneReportsThatHoldAndRenewsTheOthers() throws Exception {
        LockHandle kept = locks.acquire("wd:kept", LockOptions.noWait());
        LockHandle taken = locks.acquire("wd:taken", LockOptions.noWait());
        backend.newClient().forceRelease("wd:taken"); // another process frees it; this client is not told
        scheduler.advance(INTERVAL);
        assertThat(provider.calls).hasSize(1);
        assertThat(provider.calls.get(0)).hasSize(2);
        assertThat(losses).extracting(LockLostException::lockName).containsExactly("wd:taken");
        assertThat(losses.get(0)).hasMessageContaining("renewal found the lock no longer held");
        assertThat(taken.isValid()).isFalse();
        assertThat(kept.isValid()).isTrue();
        assertThat(kept.remainingLease()).isEqualTo(LEASE);
        // The lost hold is not renewed again.
        scheduler.advance(INTERVAL);
        assertThat(provider.calls.get(1)).extracting(Renewal::name).containsExactly("wd:kept");
    }

    @Test
    void aReleasedHoldIsNeitherRenewedNorReportedLost() throws Exception {
        LockHandle h = locks.acquire("wd:released", LockOptions.noWait());
        LockHandle brief = locks.acquire(
                "wd:released-brief",
                LockOptions.builder().noWait().lease(Duration.ofSeconds(1)).build());
        h.release();
        brief.release();
        scheduler.advance(LEASE.multipliedBy(2));
        assertThat(provider.calls).isEmpty();
        assertThat(losses).isEmpty();
        assertThat(((ProviderLockFactory) locks).watchedHolds()).isZero();
    }

    @Test
    void aHoldLostWhileItsRenewalIsQueuedIsNotReportedTwice() throws Exception {
        AtomicInteger lostStages = new AtomicInteger();
        LockHandle h = locks.acquire(
                "wd:twice",
                LockOptions.builder()
                        .noWait()
                        .watchdogLease(Duration.ofSeconds(3))
                        .build());
        h.lost().thenRun(lostStages::incrementAndGet);
        backend.newClient().forceRelease("wd:twice");
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(losses).hasSize(1);
        assertThat(lostStages.get()).isEqualTo(1);
    }

    @Test
    void theWatchdogStopsWithTheFactory() throws Exception {
        locks.acquire("wd:closing", LockOptions.noWait());
        locks.close();
        losses.clear();
        scheduler.advance(LEASE.multipliedBy(3));
        assertThat(provider.calls).isEmpty();
        assertThat(losses).isEmpty();
        assertThat(scheduler.pending())
                .as("tasks left on the caller's scheduler")
                .isZero();
    }

    @Test
    void aRenewalTheSchedulerRefusedIsTriedAgainAtTheNextLook() throws Exception {
        LockHandle h = locks.acquire("wd:refused", LockOptions.noWait());
        scheduler.refuseNextExecutes(1);
        scheduler.advance(INTERVAL);
        assertThat(provider.calls)
                .as("the refused renewal was not left marked in flight")
                .hasSize(1);
        assertThat(h.remainingLease()).isEqualTo(LEASE);
        scheduler.advance(LEASE);
        assertThat(losses).isEmpty();
    }

    @Test
    void aReleasedHoldIsForgottenByTheWatchdogAtOnce() throws Exception {
        LockHandle h = locks.acquire("wd:forgotten", LockOptions.noWait());
        assertThat(((ProviderLockFactory) locks).watchedHolds()).isEqualTo(1);
        h.release();
        assertThat(((ProviderLockFactory) locks).watchedHolds()).isZero();
    }
}
