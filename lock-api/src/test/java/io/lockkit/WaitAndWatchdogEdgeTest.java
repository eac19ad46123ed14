package io.lockkit;

import static io.lockkit.CoreTestSupport.parked;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Waiting and the watchdog where a slow or sloppy core would still pass the contract kit: close
 * must wake parked waiters, waiters park rather than poll, the watchdog's next look moves earlier
 * for a hold that needs it sooner, a failed renewal is retried soon but not in a tight loop, and
 * no wake-up is lost between a waiter's attempt and its subscription or its park.
 */
class WaitAndWatchdogEdgeTest {

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        threads.forEach(Thread::interrupt);
        for (AutoCloseable c : closeables) {
            c.close();
        }
        for (Thread t : threads) {
            t.join(5_000);
        }
    }

    private DistributedLockFactory factory(LockProvider provider, Ticker ticker, Duration watchdogLease) {
        DistributedLockFactory f = DistributedLockFactory.builder(provider)
                .ticker(ticker)
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease).build())
                .subscriptionLinger(Duration.ZERO)
                .build();
        closeables.add(f);
        return f;
    }

    private Thread start(Runnable body) {
        return CoreTestSupport.startDaemon(threads, "edge-test", body);
    }

    /** Counts attempts; renewals fail while {@link #failRenewals} is above zero (counting down). */
    private static final class CountingProvider extends ForwardingLockProvider {
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger renewCalls = new AtomicInteger();
        final AtomicInteger failRenewals = new AtomicInteger();

        CountingProvider(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            attempts.incrementAndGet();
            return super.tryAcquire(request);
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            renewCalls.incrementAndGet();
            if (failRenewals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new BackendUnavailableException(renewals.get(0).name(), "renewal refused by the test", null);
            }
            return super.renew(renewals);
        }
    }

    @Test
    void closingTheFactoryWakesAParkedWaiterAtOnce() throws Exception {
        // On a ticker that never moves, the holder's lease never lapses and the waiter's retry hint
        // is an hour: only close() can end the wait.
        FakeTicker ticker = new FakeTicker();
        LocalLockProvider backend = new LocalLockProvider(ticker);
        factory(backend, ticker, Duration.ofSeconds(30))
                .acquire(
                        "edge:close",
                        LockOptions.builder()
                                .noWait()
                                .lease(Duration.ofHours(1))
                                .build());
        DistributedLockFactory waiting = factory(backend.newClient(), ticker, Duration.ofSeconds(30));
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = start(() -> {
            try {
                waiting.getLock("edge:close").lock();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter));
        long start = System.nanoTime();
        waiting.close();
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(outcome.get(2, TimeUnit.SECONDS))
                .as("the waiter's outcome")
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        assertThat(closeMillis).as("millis close() took with a parked waiter").isLessThan(1500);
    }

    @Test
    void aWaiterParksInsteadOfPollingTheBackend() {
        FakeTicker ticker = new FakeTicker();
        LocalLockProvider backend = new LocalLockProvider(ticker);
        factory(backend, ticker, Duration.ofSeconds(30)).getLock("edge:poll").lock(Duration.ofHours(1));
        CountingProvider counting = new CountingProvider(backend.newClient());
        DistributedLockFactory waiting = factory(counting, ticker, Duration.ofSeconds(30));
        Thread waiter = start(() -> waiting.getLock("edge:poll").lock());
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && counting.attempts.get() >= 2);
        int atPark = counting.attempts.get();
        assertThat(atPark)
                .as("attempts before parking (one, and one more once subscribed)")
                .isLessThanOrEqualTo(3);
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(3))
                .until(() -> counting.attempts.get() == atPark);
    }

    @Test
    void aShorterWatchdogLeaseTakenAfterALongerOneIsRenewedInTime() throws Exception {
        LocalLockProvider backend = new LocalLockProvider();
        RenewalRecorder recorder = new RenewalRecorder(backend);
        List<LockLostException> losses = new CopyOnWriteArrayList<>();
        DistributedLockFactory locks = DistributedLockFactory.builder(recorder)
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(30))
                        .build())
                .onLockLost(losses::add)
                .build();
        closeables.add(locks);
        LockHandle longer = locks.acquire("edge:longer", LockOptions.noWait());
        LockHandle shorter = locks.acquire(
                "edge:shorter",
                LockOptions.builder()
                        .noWait()
                        .watchdogLease(Duration.ofMillis(600))
                        .build());
        await("two renewals of the 600 ms hold")
                .atMost(Duration.ofSeconds(3))
                .until(() -> recorder.renewCalls().stream()
                                .flatMap(List::stream)
                                .filter(r -> r.name().equals("edge:shorter"))
                                .count()
                        >= 2);
        assertThat(losses).isEmpty();
        assertThat(shorter.isValid()).isTrue();
        assertThat(longer.isValid()).isTrue();
    }

    @Test
    void aShortExplicitLeaseTakenAfterALongWatchdogHoldIsReportedLostAtItsDeadline() throws Exception {
        DistributedLockFactory locks = factory(new LocalLockProvider(), Ticker.system(), Duration.ofSeconds(30));
        locks.acquire("edge:watched", LockOptions.noWait());
        LockHandle brief = locks.acquire(
                "edge:brief",
                LockOptions.builder().noWait().lease(Duration.ofMillis(200)).build());
        long start = System.nanoTime();
        brief.lost().toCompletableFuture().get(3, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                .as("millis until the loss was reported")
                .isLessThan(2000);
    }

    @Test
    void aFailingRenewalIsRetriedSoonButNotInATightLoopUntilTheDeadline() throws Exception {
        CountingProvider counting = new CountingProvider(new LocalLockProvider());
        counting.failRenewals.set(Integer.MAX_VALUE);
        DistributedLockFactory locks = factory(counting, Ticker.system(), Duration.ofMillis(1500));
        LockHandle h = locks.acquire("edge:failing", LockOptions.noWait());
        h.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        // Renewal due at 500 ms, then retried every 125 ms (a quarter of the interval) until the
        // 1500 ms deadline: about nine calls.
        assertThat(counting.renewCalls.get()).as("renew calls before the loss").isBetween(3, 30);
    }

    @Test
    void aRenewalThatFailsTwiceThenSucceedsKeepsTheHold() throws Exception {
        CountingProvider counting = new CountingProvider(new LocalLockProvider());
        counting.failRenewals.set(2);
        List<LockLostException> losses = new CopyOnWriteArrayList<>();
        DistributedLockFactory locks = DistributedLockFactory.builder(counting)
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofMillis(1500))
                        .build())
                .onLockLost(losses::add)
                .build();
        closeables.add(locks);
        LockHandle h = locks.acquire("edge:recovering", LockOptions.noWait());
        long start = System.nanoTime();
        // Past the first lease: the hold lives only if a retry succeeded before its deadline.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(2000)
                        && counting.renewCalls.get() >= 4);
        assertThat(losses).isEmpty();
        assertThat(h.isValid()).isTrue();
        assertThat(counting.failRenewals.get()).as("failed renewals left").isZero();
    }

    @Test
    void aReleaseBetweenTheFirstAttemptAndTheSubscriptionIsNotMissed() throws Exception {
        // The release goes out while the waiter subscribes, before its subscription exists: no
        // wake-up reaches it, and on a ticker that never moves its retry hint is an hour. Only the
        // attempt the core makes once subscribed can find the lock free.
        FakeTicker ticker = new FakeTicker();
        LocalLockProvider backend = new LocalLockProvider(ticker);
        LockHandle held = factory(backend, ticker, Duration.ofSeconds(30))
                .acquire(
                        "edge:slipped",
                        LockOptions.builder()
                                .noWait()
                                .lease(Duration.ofHours(1))
                                .build());
        LockProvider releasingWhileSubscribing = new ForwardingLockProvider(backend.newClient()) {
            @Override
            public Subscription subscribe(String name, WakeUpListener listener) {
                held.release();
                return super.subscribe(name, listener);
            }
        };
        DistributedLockFactory waiting = factory(releasingWhileSubscribing, ticker, Duration.ofSeconds(30));
        CompletableFuture<Boolean> acquired = new CompletableFuture<>();
        start(() -> {
            DistributedLock lock = waiting.getLock("edge:slipped");
            lock.lock();
            acquired.complete(lock.isHeldByCurrentThread());
            lock.unlock();
        });
        assertThat(acquired.get(3, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWakeUpThatArrivesBeforeTheWaiterParksIsNotMissed() throws Exception {
        // The release (and its wake-up) comes right after the waiter's last attempt found the lock
        // busy and before it parks; on a ticker that never moves, a missed wake-up is an hour's wait.
        FakeTicker ticker = new FakeTicker();
        LocalLockProvider backend = new LocalLockProvider(ticker);
        LockHandle held = factory(backend, ticker, Duration.ofSeconds(30))
                .acquire(
                        "edge:early",
                        LockOptions.builder()
                                .noWait()
                                .lease(Duration.ofHours(1))
                                .build());
        AtomicInteger busyAnswers = new AtomicInteger();
        LockProvider releasingAfterTheSecondBusyAnswer = new ForwardingLockProvider(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                if (!a.isAcquired() && busyAnswers.incrementAndGet() == 2) {
                    held.release(); // the attempt made once subscribed: the wake-up comes before the park
                }
                return a;
            }
        };
        DistributedLockFactory waiting = factory(releasingAfterTheSecondBusyAnswer, ticker, Duration.ofSeconds(30));
        CompletableFuture<Boolean> acquired = new CompletableFuture<>();
        start(() -> {
            DistributedLock lock = waiting.getLock("edge:early");
            lock.lock();
            acquired.complete(lock.isHeldByCurrentThread());
            lock.unlock();
        });
        assertThat(acquired.get(3, TimeUnit.SECONDS)).isTrue();
        assertThat(busyAnswers.get())
                .as("busy answers before the lock was taken")
                .isEqualTo(2);
    }
}
