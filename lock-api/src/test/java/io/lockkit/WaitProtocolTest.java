package io.lockkit;

import static io.lockkit.CoreTestSupport.lease;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wait protocol of {@link Wait} alone, step by step (first attempt, subscribe and retry, park,
 * direct grant, last look, abandon) and close() with waits in flight, over the in-JVM provider on
 * a fake clock that only the test moves: a waiter that misses its wake-up would wait an hour.
 */
class WaitProtocolTest {

    private static final String NAME = "wait:protocol";

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        threads.forEach(Thread::interrupt);
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // a test may have closed it already
            }
        }
        for (Thread t : threads) {
            t.join(5_000);
        }
    }

    /** Records what the wait asks of the provider. */
    static class Recording extends ForwardingLockProvider {
        final List<LockRequest> requests = new CopyOnWriteArrayList<>();
        final AtomicInteger subscriptions = new AtomicInteger();
        final List<Long> abandoned = new CopyOnWriteArrayList<>();

        Recording(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            requests.add(request);
            return super.tryAcquire(request);
        }

        @Override
        public Subscription subscribe(String name, WakeUpListener listener) {
            subscriptions.incrementAndGet();
            return super.subscribe(name, listener);
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            abandoned.add(waitId);
            super.abandon(name, owner, waitId);
        }

        LockRequest last() {
            return requests.get(requests.size() - 1);
        }
    }

    private ProviderLockFactory factory(LockProvider provider) {
        ProviderLockFactory f = (ProviderLockFactory) DistributedLockFactory.builder(provider)
                .ticker(ticker)
                .scheduler(scheduler)
                .subscriptionLinger(Duration.ZERO)
                .build();
        closeables.add(f);
        return f;
    }

    /** Holds {@link #NAME} for another client of the backend, with an explicit lease. */
    private LockHandle heldElsewhere(Duration lease) throws InterruptedException {
        return factory(backend.newClient()).acquire(NAME, lease(lease));
    }

    private <T> CompletableFuture<T> startWaiter(Callable<T> body) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        CoreTestSupport.startDaemon(threads, "waiter", () -> {
            try {
                outcome.complete(body.call());
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        });
        return outcome;
    }

    private Thread lastThread() {
        return threads.get(threads.size() - 1);
    }

    /** A body that may throw, for {@link #startWaiter}. */
    interface Callable<T> {
        T call() throws Exception;
    }

    // ---- first attempt ----

    @Test
    void theFirstAttemptTakesAFreeLockWithoutSubscribingOrAbandoning() throws Exception {
        Recording recording = new Recording(backend);
        ProviderLockFactory locks = factory(recording);
        LockHandle h = locks.acquire(
                NAME, LockOptions.builder().waitAtMost(Duration.ofHours(1)).build());
        assertThat(recording.requests).hasSize(1);
        assertThat(recording.requests.get(0).waitId())
                .as("a wait's attempts carry its wait id")
                .isPositive();
        assertThat(recording.requests.get(0).maxWait())
                .as("the first attempt may queue for the whole wait")
                .isEqualTo(Duration.ofHours(1));
        assertThat(recording.subscriptions.get()).isZero();
        assertThat(recording.abandoned).isEmpty();
        assertThat(locks.waitsInFlight()).as("waits in flight after the wait").isZero();
        h.release();
    }

    @Test
    void aWaitOfZeroIsOneAttemptWithoutAWaitIdAndLeavesNoQueueToAbandon() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        Recording recording = new Recording(backend);
        assertThat(factory(recording).tryAcquire(NAME)).isEmpty();
        assertThat(recording.requests).singleElement().satisfies(r -> {
            assertThat(r.waitId()).isZero();
            assertThat(r.maxWait()).isZero();
        });
        assertThat(recording.subscriptions.get()).isZero();
        assertThat(recording.abandoned).isEmpty();
    }

    // ---- subscribe and retry, park ----

    @Test
    void aBusyLockIsSubscribedToAndTriedOnceMoreThenTheWaiterParksUntilTheReleaseWakesIt() throws Exception {
        LockHandle holder = heldElsewhere(Duration.ofHours(1));
        Recording recording = new Recording(backend.newClient());
        ProviderLockFactory locks = factory(recording);
        CompletableFuture<LockHandle> taken = startWaiter(() -> locks.acquire(NAME, LockOptions.DEFAULTS));
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(lastThread()) && recording.requests.size() == 2);
        assertThat(recording.subscriptions.get()).isOne();
        assertThat(recording.requests)
                .extracting(LockProvider.LockRequest::maxWait)
                .as("a wait without deadline may queue for as long as there is")
                .containsOnly(LockOptions.MAX_DURATION);
        await().during(Duration.ofMillis(200))
                .atMost(Duration.ofSeconds(2))
                .until(() -> recording.requests.size() == 2);

        holder.release();
        LockHandle h = taken.get(3, TimeUnit.SECONDS);
        assertThat(recording.requests)
                .as("attempts: first, once subscribed, once woken")
                .hasSize(3);
        assertThat(recording.abandoned).isEmpty();
        h.release();
    }

    @Test
    void everyWaiterWhoseFirstAttemptPrecededTheSubscriptionTriesOnceMore() throws Exception {
        // A reader and a writer of this client find a writer of another client holding. The
        // reader's subscription is slow; the other client releases while it is being made, so the
        // release reaches nobody here. The reader's retry then finds the writer queued ahead of it
        // (writer preference) and waits again; unless the writer tries once more too, both would
        // sleep until their retry hint, the hour-long lease.
        LockHandle holder =
                factory(backend.newClient()).getReadWriteLock(NAME).acquireWrite(lease(Duration.ofHours(1)));
        CountDownLatch subscribing = new CountDownLatch(1);
        CountDownLatch subscriptionMay = new CountDownLatch(1);
        Recording recording = new Recording(backend.newClient()) {
            @Override
            public Subscription subscribe(String name, WakeUpListener listener) {
                subscribing.countDown();
                try {
                    subscriptionMay.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.subscribe(name, listener);
            }
        };
        DistributedReadWriteLock rw = factory(recording).getReadWriteLock(NAME);
        CompletableFuture<LockHandle> reader = startWaiter(() -> rw.acquireRead(LockOptions.DEFAULTS));
        assertThat(subscribing.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<LockHandle> writer = startWaiter(() -> rw.acquireWrite(LockOptions.DEFAULTS));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> recording.requests.stream().anyMatch(r -> r.claim().exclusive()));

        holder.release();
        subscriptionMay.countDown();
        LockHandle w = writer.get(5, TimeUnit.SECONDS);
        assertThat(reader)
                .as("the reader waits for the writer queued ahead of it")
                .isNotDone();
        w.release();
        reader.get(5, TimeUnit.SECONDS).release();
    }

    @Test
    void aParkEndsAtTheProvidersRetryHintWithoutAnyWakeUp() throws Exception {
        // The holder's lease lapses on the fake clock: no release, so no wake-up; only the retry
        // hint (the lease left) ends the park.
        heldElsewhere(Duration.ofMillis(50));
        Recording recording = new Recording(backend.newClient());
        ProviderLockFactory locks = factory(recording);
        CompletableFuture<LockHandle> taken = startWaiter(() -> locks.acquire(NAME, LockOptions.DEFAULTS));
        await().atMost(Duration.ofSeconds(5)).until(() -> recording.requests.size() >= 4);
        assertThat(taken).as("still busy while the fake clock stands").isNotDone();

        ticker.advance(Duration.ofMillis(50));
        LockHandle h = taken.get(3, TimeUnit.SECONDS);
        assertThat(recording.requests.get(recording.requests.size() - 1).maxWait())
                .isEqualTo(LockOptions.MAX_DURATION);
        h.release();
    }

    // ---- last look, abandon on timeout ----

    @Test
    void atTheDeadlineALastLookThatDoesNotWaitPrecedesGivingUpAndTheWaitIsAbandoned() throws Exception {
        // Deadline and lease end together, and the lease lapses without a release (no wake-up):
        // the waiter parks for its whole wait (500 ms, real time), and only a last look, made
        // after the park, can take the lock.
        heldElsewhere(Duration.ofMillis(500));
        Recording recording = new Recording(backend.newClient());
        ProviderLockFactory locks = factory(recording);
        CompletableFuture<Boolean> taken = startWaiter(() -> locks.getLock(NAME).tryLock(500, TimeUnit.MILLISECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(lastThread()) && recording.requests.size() == 2);
        long waitId = recording.requests.get(0).waitId();
        assertThat(recording.requests.get(0).maxWait()).isEqualTo(Duration.ofMillis(500));

        ticker.advance(Duration.ofMillis(500));
        assertThat(taken.get(3, TimeUnit.SECONDS)).as("taken by the last look").isTrue();
        assertThat(recording.last().maxWait()).as("the last look does not wait").isZero();
        assertThat(recording.last().waitId())
                .as("the last look belongs to the wait")
                .isEqualTo(waitId);
        assertThat(recording.abandoned).isEmpty();
    }

    @Test
    void aDeadlineReachedDuringAnAttemptEndsTheWaitAtTheParkWithoutALastLook() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        AtomicInteger attempts = new AtomicInteger();
        Recording slow = new Recording(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                if (attempts.incrementAndGet() == 2) {
                    ticker.advance(Duration.ofMillis(
                            300)); // the attempt made once subscribed took until the deadline, exactly
                }
                return a;
            }
        };
        ProviderLockFactory locks = factory(slow);
        CompletableFuture<Boolean> taken = startWaiter(() -> locks.getLock(NAME).tryLock(300, TimeUnit.MILLISECONDS));

        assertThat(taken.get(3, TimeUnit.SECONDS)).isFalse();
        assertThat(slow.requests)
                .as("attempts: first, once subscribed; no last look after the deadline")
                .hasSize(2);
        assertThat(slow.abandoned).containsExactly(slow.requests.get(0).waitId());
    }

    @Test
    void aLastLookThatFindsTheLockBusyGivesUpAndAbandonsTheWait() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        Recording recording = new Recording(backend.newClient());
        ProviderLockFactory locks = factory(recording);
        // Retry hint an hour, so the park ends only at the deadline (real time, 300 ms).
        CompletableFuture<Boolean> taken = startWaiter(() -> locks.getLock(NAME).tryLock(300, TimeUnit.MILLISECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(lastThread()) && recording.requests.size() == 2);
        long waitId = recording.requests.get(0).waitId();
        ticker.advance(Duration.ofMillis(300));

        assertThat(taken.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(recording.last().maxWait()).as("the last look does not wait").isZero();
        assertThat(recording.abandoned).as("the wait left the backend's queue").containsExactly(waitId);
        assertThat(locks.liveSubscriptions()).isZero();
        assertThat(locks.waitsInFlight()).isZero();
    }

    // ---- direct grant ----

    @Test
    void aDirectGrantFromThisClientsReleaseIsTakenWithoutAnotherAttempt() throws Exception {
        HandOverTest.GrantingProvider granting = new HandOverTest.GrantingProvider(backend);
        Recording recording = new Recording(granting);
        ProviderLockFactory locks = factory(recording);
        LockHandle first = locks.acquire(NAME, lease(Duration.ofHours(1)));
        CompletableFuture<LockHandle> second = startWaiter(() -> locks.acquire(
                NAME, LockOptions.builder().lease(Duration.ofHours(1)).build()));
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(lastThread()) && granting.waiting.containsKey(NAME));
        int attempts = recording.requests.size();

        first.release();
        LockHandle h = second.get(3, TimeUnit.SECONDS);
        assertThat(recording.requests).as("attempts after the grant").hasSize(attempts);
        assertThat(granting.attemptsMeetingAGrant).isZero();
        assertThat(h.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(recording.abandoned).isEmpty();
        h.release();
    }

    // ---- abandon on interrupt ----

    @Test
    void anInterruptedWaitThrowsAndIsAbandoned() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        Recording recording = new Recording(backend.newClient());
        ProviderLockFactory locks = factory(recording);
        CompletableFuture<Boolean> outcome = startWaiter(() -> {
            locks.getLock(NAME).lockInterruptibly();
            return true;
        });
        Thread waiter = lastThread();
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && recording.requests.size() == 2);
        waiter.interrupt();
        assertThat(outcome)
                .failsWithin(Duration.ofSeconds(3))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(InterruptedException.class);
        assertThat(recording.abandoned)
                .containsExactly(recording.requests.get(0).waitId());
        assertThat(locks.waitsInFlight()).isZero();
    }

    @Test
    void anUninterruptibleWaitKeepsWaitingThroughAnInterruptAndRestoresIt() throws Exception {
        LockHandle holder = heldElsewhere(Duration.ofHours(1));
        Recording recording = new Recording(backend.newClient());
        ProviderLockFactory locks = factory(recording);
        CompletableFuture<Boolean> interruptedAfter = startWaiter(() -> {
            DistributedLock lock = locks.getLock(NAME);
            lock.lock();
            boolean flag = Thread.currentThread().isInterrupted();
            lock.unlock();
            return flag;
        });
        Thread waiter = lastThread();
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && recording.requests.size() == 2);
        waiter.interrupt();
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && recording.requests.size() == 3);
        assertThat(interruptedAfter).isNotDone();

        holder.release();
        assertThat(interruptedAfter.get(3, TimeUnit.SECONDS))
                .as("interrupt status after lock()")
                .isTrue();
        assertThat(recording.abandoned).isEmpty();
    }

    @Test
    void aWaitWhoseAttemptFailsIsAbandoned() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        AtomicInteger attempts = new AtomicInteger();
        Recording failingSecond = new Recording(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                if (attempts.incrementAndGet() == 2) {
                    throw new BackendUnavailableException(request.name(), "refused by the test", null);
                }
                return super.tryAcquire(request);
            }
        };
        ProviderLockFactory locks = factory(failingSecond);
        assertThat(startWaiter(() -> locks.acquire(NAME, LockOptions.DEFAULTS)))
                .failsWithin(Duration.ofSeconds(3))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(BackendUnavailableException.class);
        assertThat(failingSecond.abandoned)
                .containsExactly(failingSecond.requests.get(0).waitId());
        assertThat(locks.waitsInFlight()).isZero();
    }

    // ---- close with waits in flight ----

    @Test
    void closeEndsEveryWaitInFlightWithLockExceptionAndReturnsOnceTheyLeft() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        Recording recording = new Recording(backend.newClient());
        ProviderLockFactory locks = factory(recording);
        CompletableFuture<LockHandle> a = startWaiter(() -> locks.acquire(NAME, LockOptions.DEFAULTS));
        Thread first = lastThread();
        CompletableFuture<Boolean> b = startWaiter(() -> locks.getLock(NAME).tryLock(1, TimeUnit.HOURS));
        Thread second = lastThread();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> parked(first) && parked(second) && locks.waitsInFlight() == 2);

        long start = System.nanoTime();
        locks.close();
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(recording.abandoned)
                .as("both waits left the queue before close returned")
                .hasSize(2);
        assertThat(locks.waitsInFlight()).isZero();
        assertThat(closeMillis).as("millis close() took").isLessThan(1500);
        for (CompletableFuture<?> f : List.of(a, b)) {
            assertThat(f)
                    .failsWithin(Duration.ofSeconds(3))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .havingCause()
                    .isInstanceOf(LockException.class)
                    .withMessageContaining("closed while waiting");
        }
    }

    @Test
    void closeWaitsForAWaitThatIsStillLeavingTheBackendsQueue() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        CountDownLatch abandonEntered = new CountDownLatch(1);
        CountDownLatch letAbandonFinish = new CountDownLatch(1);
        Recording slowAbandon = new Recording(backend.newClient()) {
            @Override
            public void abandon(String name, String owner, long waitId) {
                abandonEntered.countDown();
                try {
                    letAbandonFinish.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.abandon(name, owner, waitId);
            }
        };
        ProviderLockFactory locks = factory(slowAbandon);
        CompletableFuture<LockHandle> waiting = startWaiter(() -> locks.acquire(NAME, LockOptions.DEFAULTS));
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(lastThread()) && slowAbandon.requests.size() == 2);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(locks::close);
        assertThat(abandonEntered.await(3, TimeUnit.SECONDS)).isTrue();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !closing.isDone());

        letAbandonFinish.countDown();
        closing.get(1, TimeUnit.SECONDS);
        assertThat(slowAbandon.abandoned).hasSize(1);
        assertThat(waiting)
                .failsWithin(Duration.ofSeconds(3))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LockException.class);
    }

    @Test
    void closeGivesAWaitThatNeverLeavesTwoSecondsAndNoMore() throws Exception {
        heldElsewhere(Duration.ofHours(1));
        CountDownLatch letAbandonFinish = new CountDownLatch(1);
        Recording stuckAbandon = new Recording(backend.newClient()) {
            @Override
            public void abandon(String name, String owner, long waitId) {
                try {
                    letAbandonFinish.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        ProviderLockFactory locks = factory(stuckAbandon);
        startWaiter(() -> locks.acquire(NAME, LockOptions.DEFAULTS));
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(lastThread()) && stuckAbandon.requests.size() == 2);
        long start = System.nanoTime();
        locks.close();
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        letAbandonFinish.countDown();
        assertThat(closeMillis).as("millis close() waited for the stuck wait").isBetween(1900L, 4000L);
    }

    @Test
    void waitingForWaitsInFlightGivesUpAtItsTime() {
        InFlight inFlight = new InFlight();
        inFlight.began();
        long start = System.nanoTime();
        assertThat(inFlight.awaitNone(TimeUnit.MILLISECONDS.toNanos(50)))
                .as("none left")
                .isFalse();
        assertThat(System.nanoTime() - start)
                .as("nanos waited")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        inFlight.ended();
        assertThat(inFlight.count()).isZero();
    }

    @Test
    void anInterruptDuringCloseDoesNotCutTheWaitForWaitsShortAndIsKept() throws Exception {
        InFlight inFlight = new InFlight();
        inFlight.began();
        CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
        CompletableFuture<Boolean> none = new CompletableFuture<>();
        Thread closer = CoreTestSupport.startDaemon(threads, "closer", () -> {
            none.complete(inFlight.awaitNone(TimeUnit.SECONDS.toNanos(10)));
            interruptedAfter.complete(Thread.currentThread().isInterrupted());
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(closer));
        closer.interrupt();
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !none.isDone());
        inFlight.ended();
        assertThat(none.get(3, TimeUnit.SECONDS)).isTrue();
        assertThat(interruptedAfter.get(3, TimeUnit.SECONDS)).isTrue();
        assertThat(inFlight.awaitNone(0)).as("none in flight: no wait at all").isTrue();
    }
}
