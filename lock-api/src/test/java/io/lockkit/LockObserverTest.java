package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.LockObserver.LossCause;
import io.lockkit.LockObserver.Outcome;
import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a {@link LockObserver} is told, and that a failing one never fails a lock call. */
class LockObserverTest {

    private static final String NAME = "orders:42";

    /** Records every call as a line of text. */
    static final class Recording implements LockObserver {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void acquired(String name, long waitedNanos, long fencingToken, boolean reentrant) {
            calls.add("acquired " + name + " token " + fencingToken + (reentrant ? " reentrant" : "") + " waited "
                    + waitedNanos);
        }

        @Override
        public void notAcquired(String name, long waitedNanos, Outcome outcome) {
            calls.add(outcome + " " + name);
        }

        @Override
        public void released(String name, long fencingToken, long heldNanos) {
            calls.add("released " + name + " token " + fencingToken + " held " + heldNanos);
        }

        @Override
        public void lost(String name, long fencingToken, LossCause cause, LockLostException loss) {
            calls.add("lost " + name + " token " + fencingToken + " " + cause);
        }

        @Override
        public void renewalFailed(int holds, RuntimeException failure) {
            calls.add("renewalFailed " + holds);
        }

        @Override
        public void backendUnavailable(@Nullable String name, BackendUnavailableException failure) {
            calls.add("backendUnavailable " + name);
        }

        @Override
        public void waitingChanged(String name, int waiting) {
            calls.add("waiting " + name + " " + waiting);
        }
    }

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final Recording seen = new Recording();
    private final DistributedLockFactory locks = DistributedLockFactory.builder(backend)
            .ticker(ticker)
            .observer(seen)
            .build();
    private final DistributedLockFactory other =
            DistributedLockFactory.builder(backend.newClient()).ticker(ticker).build();
    /** On the real clock, for waits that must run out. */
    private final DistributedLockFactory waiting =
            DistributedLockFactory.builder(backend.newClient()).observer(seen).build();

    @AfterEach
    void close() {
        locks.close();
        other.close();
        waiting.close();
    }

    @Test
    void acquisitionsAndReleasesAreReportedWithTokenReentrancyAndHoldTime() {
        DistributedLock lock = locks.getLock(NAME);
        lock.lock();
        long token = lock.fencingToken();
        lock.lock();
        ticker.advance(Duration.ofSeconds(5));
        lock.unlock();
        lock.unlock();

        assertThat(seen.calls)
                .containsExactly(
                        "acquired orders:42 token " + token + " waited 0",
                        "acquired orders:42 token " + token + " reentrant waited 0",
                        "released orders:42 token " + token + " held " + TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void anObserverOfKindsIsToldWhatEachHoldIsAndItsPermits() throws InterruptedException {
        List<String> kinds = new CopyOnWriteArrayList<>();
        LockObserver byKind = new LockObserver() {
            @Override
            public void acquired(
                    String name, HoldKind kind, int permits, long waitedNanos, long token, boolean reentrant) {
                kinds.add("acquired " + name + " " + kind + " " + permits);
            }

            @Override
            public void notAcquired(String name, HoldKind kind, long waitedNanos, Outcome outcome) {
                kinds.add(outcome + " " + name + " " + kind);
            }

            @Override
            public void released(String name, HoldKind kind, int permits, long token, long heldNanos) {
                kinds.add("released " + name + " " + kind + " " + permits);
            }
        };
        try (DistributedLockFactory observed = DistributedLockFactory.builder(backend.newClient())
                .ticker(ticker)
                .observer(byKind)
                .build()) {
            observed.getSemaphore("exports", 4).acquire(3, LockOptions.noWait()).release();
            observed.getFairLock("jobs").lock();
            observed.getFairLock("jobs").unlock();
            LockHandle writer = other.getReadWriteLock("config").acquireWrite(LockOptions.noWait());
            assertThat(observed.getReadWriteLock("config").tryAcquireRead(LockOptions.noWait()))
                    .isEmpty();
            writer.release();
            locks.getSemaphore("exports", 4).acquire(2, LockOptions.noWait()).release();
        }
        assertThat(kinds)
                .containsExactly(
                        "acquired exports PERMITS 3",
                        "released exports PERMITS 3",
                        "acquired jobs FAIR 1",
                        "released jobs FAIR 1",
                        "BUSY config READ");
        assertThat(seen.calls)
                .as("an observer of the methods without kinds")
                .filteredOn(c -> c.contains("exports"))
                .hasSize(2)
                .first()
                .asString()
                .startsWith("acquired exports token");
    }

    @Test
    void busyTimedOutAndInterruptedAcquisitionsAreReported() throws InterruptedException {
        LockHandle held = other.acquire(NAME, LockOptions.noWait());
        DistributedLock lock = waiting.getLock(NAME);

        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(Duration.ofMillis(20), null)).isFalse();
        Thread.currentThread().interrupt();
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        held.release();

        assertThat(seen.calls)
                .containsExactly(
                        "BUSY orders:42",
                        "waiting orders:42 1",
                        "TIMED_OUT orders:42",
                        "waiting orders:42 0",
                        "INTERRUPTED orders:42");
    }

    @Test
    void aWaitIsReportedAsWaitingUntilItTakesTheLock() throws Exception {
        LockHandle held = other.acquire(NAME, LockOptions.noWait());
        Thread waiter = new Thread(() -> {
            DistributedLock lock = locks.getLock(NAME);
            lock.lock();
            lock.unlock();
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.calls.contains("waiting orders:42 1"));
        held.release();
        waiter.join(TimeUnit.SECONDS.toMillis(5));

        assertThat(seen.calls).hasSize(4);
        assertThat(seen.calls.get(0)).isEqualTo("waiting orders:42 1");
        assertThat(seen.calls.get(1)).isEqualTo("waiting orders:42 0");
        assertThat(seen.calls.get(2)).startsWith("acquired orders:42 token ");
        assertThat(seen.calls.get(3)).startsWith("released orders:42 token ");
    }

    @Test
    void waitingCountsAreToldInTheOrderTheyChanged() throws Exception {
        CountDownLatch firstTold = new CountDownLatch(1);
        CountDownLatch secondTold = new CountDownLatch(1);
        List<Integer> told = new CopyOnWriteArrayList<>();
        LockObserver slowOnTheFirst = new LockObserver() {
            @Override
            public void waitingChanged(String name, int now) {
                if (firstTold.getCount() > 0) {
                    firstTold.countDown();
                    try { // the second waiter reports meanwhile unless reports are ordered
                        secondTold.await(1, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                } else if (now == 2) {
                    secondTold.countDown();
                }
                told.add(now);
            }
        };
        try (DistributedLockFactory observed = DistributedLockFactory.builder(backend.newClient())
                .observer(slowOnTheFirst)
                .build()) {
            LockHandle held = other.acquire(NAME, LockOptions.noWait());
            Runnable waitForIt = () -> {
                try {
                    observed.acquire(NAME, LockOptions.waitAtMost(Duration.ofSeconds(30)))
                            .release();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            Thread first = new Thread(waitForIt);
            first.start();
            assertThat(firstTold.await(5, TimeUnit.SECONDS)).isTrue();
            Thread second = new Thread(waitForIt);
            second.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> told.size() == 2);

            assertThat(told).as("the last count told is the number waiting").containsExactly(1, 2);
            held.release();
            first.join(TimeUnit.SECONDS.toMillis(10));
            second.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(told).containsExactly(1, 2, 1, 0);
        }
    }

    @Test
    void lossesAreReportedWithTheirCause() throws InterruptedException {
        LockHandle forced = locks.acquire("forced", LockOptions.noWait());
        locks.getLock("forced").forceUnlock();
        // Long enough on the real clock that the watchdog does not find the lapse first.
        LockHandle lapsed = locks.acquire(
                "lapsed",
                LockOptions.builder().noWait().lease(Duration.ofSeconds(60)).build());
        ticker.advance(Duration.ofSeconds(61));
        assertThatThrownBy(lapsed::release).isInstanceOf(LockLostException.class);
        LockHandle open = locks.acquire("open", LockOptions.noWait());
        locks.close();

        assertThat(seen.calls)
                .filteredOn(c -> c.startsWith("lost"))
                .containsExactly(
                        "lost forced token " + forced.fencingToken() + " FORCE_RELEASED",
                        "lost lapsed token " + lapsed.fencingToken() + " NOT_HELD",
                        "lost open token " + open.fencingToken() + " FACTORY_CLOSED");
    }

    @Test
    void anUnreachableBackendAndFailedRenewalsAreReported() {
        DistributedLockFactory fast = DistributedLockFactory.builder(backend)
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(3))
                        .renewalInterval(Duration.ofMillis(50))
                        .build())
                .observer(seen)
                .build();
        try {
            fast.getLock(NAME).lock();
            backend.stopBackend();

            assertThatThrownBy(() -> fast.getLock("other").tryLock()).isInstanceOf(BackendUnavailableException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> seen.calls.contains("renewalFailed 1"));
            assertThat(seen.calls).contains("backendUnavailable other", "backendUnavailable null");
        } finally {
            backend.startBackend();
            fast.close();
        }
    }

    /** Throws from every method. */
    static final class Failing implements LockObserver {
        @Override
        public void acquired(String name, long waitedNanos, long fencingToken, boolean reentrant) {
            throw new IllegalStateException("acquired");
        }

        @Override
        public void notAcquired(String name, long waitedNanos, Outcome outcome) {
            throw new IllegalStateException("notAcquired");
        }

        @Override
        public void released(String name, long fencingToken, long heldNanos) {
            throw new IllegalStateException("released");
        }

        @Override
        public void waitingChanged(String name, int waiting) {
            throw new IllegalStateException("waitingChanged");
        }

        @Override
        public String toString() {
            return "Failing";
        }
    }

    @Test
    void aFailingObserverIsLoggedOncePerMethodAndNeverFailsALockCall() throws InterruptedException {
        Logger jul = Logger.getLogger(Events.class.getName());
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        jul.addHandler(handler);
        Recording after = new Recording();
        try (DistributedLockFactory failing = DistributedLockFactory.builder(backend)
                .observer(new Failing())
                .observer(after)
                .build()) {
            DistributedLock lock = failing.getLock(NAME);
            for (int i = 0; i < 3; i++) {
                lock.lock();
                lock.unlock();
            }
            LockHandle held = other.acquire(NAME, LockOptions.noWait());
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.tryLock(Duration.ofMillis(10), null)).isFalse();
            held.release();
        } finally {
            jul.removeHandler(handler);
        }

        assertThat(after.calls)
                .as("the observer after the failing one is still told")
                .hasSize(3 * 2 + 2 + 3)
                .contains("BUSY orders:42", "TIMED_OUT orders:42", "waiting orders:42 0");
        assertThat(logged)
                .extracting(r -> r.getThrown().getMessage())
                .containsExactlyInAnyOrder("acquired", "released", "notAcquired", "waitingChanged");
        assertThat(logged)
                .extracting(LogRecord::getMessage)
                .allMatch(m -> m.startsWith("lock observer Failing failed in "));
    }

    @Test
    void aCountingObserverAsTheGuideShowsIt() throws InterruptedException {
        LockProvider provider = backend;
        // guide:observer-begin
        LongAdder acquisitions = new LongAdder();
        LongAdder losses = new LongAdder();
        DistributedLockFactory locks = DistributedLockFactory.builder(provider)
                .observer(new LockObserver() {
                    @Override
                    public void acquired(String name, long waitedNanos, long fencingToken, boolean reentrant) {
                        acquisitions.increment();
                    }

                    @Override
                    public void lost(String name, long fencingToken, LossCause cause, LockLostException loss) {
                        losses.increment();
                    }
                })
                .build();
        // guide:observer-end
        try (locks;
                LockHandle ignored = locks.acquire(NAME, LockOptions.noWait())) {
            assertThat(acquisitions.sum()).isEqualTo(1);
        }
        assertThat(losses.sum()).isZero();
    }

    @Test
    void aNullObserverIsRejectedByName() {
        assertThatThrownBy(() -> DistributedLockFactory.builder(backend).observer(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("observer");
    }
}
