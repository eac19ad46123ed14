package io.lockkit;

import static io.lockkit.CoreTestSupport.lease;
import static io.lockkit.CoreTestSupport.parked;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The factory's paths that a well-behaved in-JVM backend never takes: releases the backend
 * answers with "still held", "not held", a hand-over or an error; reacquisition and extension of a
 * hold the backend no longer has; providers without a capability; answers of zero and null;
 * interrupts on entry. A fake clock that only the test moves, so a missed wake-up would be an
 * hour's wait.
 */
class FactoryEdgeTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final List<LockLostException> losses = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        threads.forEach(Thread::interrupt);
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // a test may have closed it already, or broken its backend on purpose
            }
        }
        for (Thread t : threads) {
            t.join(5_000);
        }
    }

    private ProviderLockFactory factory(LockProvider provider) {
        ProviderLockFactory f = (ProviderLockFactory) DistributedLockFactory.builder(provider)
                .ticker(ticker)
                .scheduler(scheduler)
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(30))
                        .build())
                .onLockLost(losses::add)
                .subscriptionLinger(Duration.ZERO)
                .build();
        closeables.add(f);
        return f;
    }

    private Thread start(Runnable body) {
        return CoreTestSupport.startDaemon(threads, "factory-edge-test", body);
    }

    /** Holds the lock for another client for an hour (the fake clock never gets there). */
    private LockHandle heldElsewhere(String name) throws InterruptedException {
        return factory(backend.newClient()).acquire(name, lease(Duration.ofHours(1)));
    }

    /** Counts attempts, and answers what the test says instead of the backend where it says so. */
    static class Scripted extends ForwardingLockProvider {
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();
        final AtomicInteger abandons = new AtomicInteger();

        Scripted(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            attempts.incrementAndGet();
            return super.tryAcquire(request);
        }

        @Override
        public Release release(String name, String owner) {
            releases.incrementAndGet();
            return super.release(name, owner);
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            abandons.incrementAndGet();
            super.abandon(name, owner, waitId);
        }
    }

    // ---- releases ----

    @Test
    void theLastReleaseRepeatsWhileTheBackendIsOneCountAhead() throws Exception {
        // A retried reentrant request left the backend a count ahead of this client.
        Scripted doubling = new Scripted(backend) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                super.tryAcquire(request);
                return super.tryAcquire(request);
            }
        };
        ProviderLockFactory locks = factory(doubling);
        LockHandle h = locks.acquire("edge:ahead", LockOptions.noWait());
        h.release();
        assertThat(doubling.releases.get()).isEqualTo(2);
        assertThat(backend.inspect("edge:ahead")).isEmpty();
        assertThat(h.holdCount()).isZero();
    }

    @Test
    void aReleaseTheBackendRefusesEndsTheHoldHereAndWakesThisClientsWaitersToLookAgain() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean();
        Scripted refusing = new Scripted(backend) {
            @Override
            public Release release(String name, String owner) {
                if (refuse.get()) {
                    throw new BackendUnavailableException(name, "release refused by the test", null);
                }
                return super.release(name, owner);
            }
        };
        ProviderLockFactory locks = factory(refusing);
        LockHandle h = locks.acquire("edge:refused", lease(Duration.ofHours(1)));
        h.acquireAgain();
        Thread waiter = start(() -> locks.getLock("edge:refused").lock());
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && refusing.attempts.get() >= 4);
        int before = refusing.attempts.get();

        refuse.set(true);
        assertThatThrownBy(h::release).as("not the last count").isInstanceOf(BackendUnavailableException.class);
        assertThat(h.holdCount()).isEqualTo(1);
        assertThat(h.isValid()).isTrue();
        assertThatThrownBy(h::release).isInstanceOf(BackendUnavailableException.class);
        assertThat(h.holdCount()).isZero();
        assertThat(h.isValid()).isFalse();
        assertThat(locks.watchedHolds()).isZero();
        // The waiter looked again at once (the release may have run and freed the lock), not at its hour-long hint.
        await().atMost(Duration.ofSeconds(5)).until(() -> refusing.attempts.get() > before);
        assertThat(losses).isEmpty();
        refuse.set(false);
    }

    @Test
    void aReleaseTheBackendAnswersNotHeldReportsTheLoss() throws Exception {
        ProviderLockFactory locks = factory(backend);
        LockHandle h = locks.acquire("edge:not-held", lease(Duration.ofHours(1)));
        h.acquireAgain();
        backend.newClient().forceRelease("edge:not-held");
        assertThatThrownBy(h::release)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("lapsed on the backend");
        assertThat(losses).hasSize(1);
        assertThat(h.holdCount()).isZero();
        assertThat(locks.watchedHolds()).isZero();
    }

    @Test
    void aThreadsUnlockOfAHoldStillCountedElsewhereKeepsItForTheThread() {
        ProviderLockFactory locks = factory(backend);
        DistributedLock lock = locks.getLock("edge:count");
        lock.lock();
        lock.lock();
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("edge:count");
    }

    @Test
    void aHandOverInTheReleasesAnswerWakesTheNamedWaiterAtOnce() throws Exception {
        // The backend hands the lock to the first waiting owner itself and sends no wake-up: only
        // the release's answer tells this client which of its waiters should look.
        java.util.Map<String, String> queue = new java.util.concurrent.ConcurrentHashMap<>();
        Scripted handingOver = new Scripted(backend) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                if (!a.isAcquired() && request.waiting()) {
                    queue.putIfAbsent(request.name(), request.owner());
                }
                return a;
            }

            @Override
            public Release release(String name, String owner) {
                Release r = super.release(name, owner);
                String next = queue.remove(name);
                return r.outcome() == Release.Outcome.RELEASED && next != null
                        ? new Release(Release.Outcome.RELEASED, next)
                        : r;
            }

            @Override
            public Subscription subscribe(String name, WakeUpListener listener) {
                return () -> {}; // no wake-ups from the backend at all
            }
        };
        ProviderLockFactory locks = factory(handingOver);
        LockHandle h = locks.acquire("edge:hand", lease(Duration.ofHours(1)));
        CompletableFuture<Boolean> took = new CompletableFuture<>();
        Thread waiter = start(() -> {
            DistributedLock lock = locks.getLock("edge:hand");
            lock.lock();
            took.complete(lock.isHeldByCurrentThread());
            lock.unlock();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && queue.containsKey("edge:hand"));
        h.release();
        assertThat(took.get(3, TimeUnit.SECONDS)).isTrue();
    }

    // ---- reacquire and extend ----

    @Test
    void acquiringAgainAHoldTheBackendNoLongerHasReportsItLost() throws Exception {
        ProviderLockFactory locks = factory(backend);
        LockHandle h = locks.acquire("edge:again", lease(Duration.ofHours(1)));
        h.acquireAgain();
        assertThat(h.holdCount()).isEqualTo(2);
        backend.newClient().forceRelease("edge:again");
        // Free on the backend: the attempt wins a new hold, which is given back, and the old one is lost.
        assertThatThrownBy(h::acquireAgain)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("acquired again");
        assertThat(backend.inspect("edge:again"))
                .as("the new hold was released")
                .isEmpty();
        assertThat(losses).hasSize(1);
        assertThatThrownBy(h::acquireAgain).as("lost stays lost").isSameAs(losses.get(0));
    }

    @Test
    void acquiringAgainAHoldTakenByAnotherOwnerReportsItLostAndLeavesTheirs() throws Exception {
        ProviderLockFactory locks = factory(backend);
        LockHandle h = locks.acquire("edge:taken", lease(Duration.ofHours(1)));
        backend.newClient().forceRelease("edge:taken");
        LockHandle theirs = heldElsewhere("edge:taken");
        assertThatThrownBy(h::acquireAgain).isInstanceOf(LockLostException.class);
        assertThat(theirs.isValid()).isTrue();
        assertThat(backend.inspect("edge:taken")).isPresent();
    }

    @Test
    void acquiringAgainAReleasedHandleIsAnError() throws Exception {
        ProviderLockFactory locks = factory(backend);
        LockHandle h = locks.acquire("edge:released", LockOptions.noWait());
        h.release();
        assertThatThrownBy(h::acquireAgain)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released");
        assertThatThrownBy(h::release)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released");
        assertThatThrownBy(() -> h.extend(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void extendingAHoldWhoseLeaseRanOutOrThatTheBackendLostReportsTheLoss() throws Exception {
        ProviderLockFactory locks = factory(backend);
        LockHandle lapsed = locks.acquire("edge:lapsed", lease(Duration.ofSeconds(1)));
        ticker.advance(Duration.ofSeconds(1)); // the watchdog has not run yet: extend finds it out itself
        assertThatThrownBy(() -> lapsed.extend(Duration.ofSeconds(5)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("ran out before it was extended");
        assertThatThrownBy(() -> lapsed.extend(Duration.ofSeconds(5)))
                .as("lost stays lost")
                .isSameAs(losses.get(0));

        LockHandle gone = locks.acquire("edge:gone", lease(Duration.ofSeconds(10)));
        backend.newClient().forceRelease("edge:gone");
        assertThatThrownBy(() -> gone.extend(Duration.ofSeconds(5)))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("no longer had this hold when it was extended");
        assertThat(losses).hasSize(2);
    }

    @Test
    void aThreadsReentryWithALongerExplicitLeaseExtendsItAndAShorterOneDoesNot() throws Exception {
        ProviderLockFactory locks = factory(backend);
        DistributedLock lock = locks.getLock("edge:reentry");
        lock.lock(Duration.ofSeconds(10));
        ticker.advance(Duration.ofSeconds(1));
        lock.lock(Duration.ofSeconds(2));
        assertThat(lock.remainingLease()).isEqualTo(Duration.ofSeconds(9));
        lock.lock(Duration.ofSeconds(20));
        assertThat(lock.remainingLease()).isEqualTo(Duration.ofSeconds(20));
        // The watchdog now looks at the new deadline, not the old one.
        scheduler.advance(Duration.ofSeconds(19));
        assertThat(losses).isEmpty();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(losses).hasSize(1);
    }

    @Test
    void aThreadThatLocksAgainAfterTheBackendLostItsHoldGetsANewHoldAndHearsOfTheOldOne() {
        ProviderLockFactory locks = factory(backend);
        DistributedLock lock = locks.getLock("edge:relock");
        lock.lock(Duration.ofSeconds(10));
        long first = lock.fencingToken();
        backend.newClient().forceRelease("edge:relock");
        lock.lock(Duration.ofSeconds(10));
        assertThat(losses)
                .extracting(LockLostException::getMessage)
                .singleElement()
                .asString()
                .contains("no longer had this hold when the thread locked again");
        assertThat(lock.fencingToken()).isGreaterThan(first);
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock(); // the new hold
        assertThat(backend.inspect("edge:relock")).isEmpty();
        assertThatThrownBy(lock::unlock)
                .as("the old hold's unlock reports its loss")
                .isSameAs(losses.get(0));
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    // ---- capabilities and bad answers ----

    @Test
    void aProviderWithoutCapabilitiesRefusesWhatNeedsThem() throws Exception {
        ProviderLockFactory locks = factory(new ForwardingLockProvider(backend) {
            @Override
            public Set<Capability> capabilities() {
                return Set.of();
            }
        });
        assertThatThrownBy(() -> locks.acquire("edge:caps", lease(Duration.ofSeconds(5))))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("explicit lease");
        LockHandle h = locks.acquire("edge:caps", LockOptions.noWait());
        assertThatThrownBy(h::fencingToken)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("fencing tokens");
        assertThatThrownBy(() -> h.extend(Duration.ofSeconds(5))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> locks.getLock("edge:caps").forceUnlock())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("force release");
        assertThatThrownBy(() -> locks.getLock("edge:caps").isLocked())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("inspecting");
        assertThat(h.isValid()).isTrue();
    }

    @Test
    void aProviderAnsweringNullToAnAttemptIsAnErrorNamingIt() {
        ProviderLockFactory locks = factory(new ForwardingLockProvider(backend) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                return null;
            }

            @Override
            public String toString() {
                return "NullProvider";
            }
        });
        assertThatThrownBy(() -> locks.tryAcquire("edge:null"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("NullProvider answered null");
    }

    @Test
    void aRenewalIntervalNotShorterThanTheDefaultWatchdogLeaseIsRefused() throws Exception {
        DistributedLockFactory locks = DistributedLockFactory.builder(backend)
                .ticker(ticker)
                .scheduler(scheduler)
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(10))
                        .build())
                .build();
        closeables.add(locks);
        LockOptions equal = LockOptions.builder()
                .noWait()
                .renewalInterval(Duration.ofSeconds(10))
                .build();
        assertThatThrownBy(() -> locks.acquire("edge:interval", equal))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewalInterval")
                .hasMessageContaining("watchdog lease");
        LockOptions shorter = LockOptions.builder()
                .noWait()
                .renewalInterval(Duration.ofSeconds(10).minusNanos(1))
                .build();
        assertThat(locks.tryAcquire("edge:interval", shorter)).isPresent();
    }

    @Test
    void aBusyAnswerOfZeroIsRetriedNoFasterThanAMillisecond() {
        // The backend says "try again now" every time: the waiter must not spin on it.
        Scripted eager = new Scripted(backend) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                return a.isAcquired() ? a : Acquisition.busy(Duration.ZERO);
            }
        };
        ProviderLockFactory locks = factory(eager);
        try {
            heldElsewhere("edge:eager");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        start(() -> locks.getLock("edge:eager").lock());
        await().atMost(Duration.ofSeconds(5)).until(() -> eager.attempts.get() >= 3);
        int start = eager.attempts.get();
        long t0 = System.nanoTime();
        await().pollDelay(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> true);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertThat(eager.attempts.get() - start).as("attempts in %d ms", millis).isLessThanOrEqualTo((int) millis + 10);
    }

    // ---- interrupts and timed waits ----

    @Test
    void anInterruptSetOnEntryStopsAnInterruptibleWaitBeforeAnyAttempt() {
        Scripted counting = new Scripted(backend);
        ProviderLockFactory locks = factory(counting);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> locks.getLock("edge:int").lockInterruptibly())
                .isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).as("cleared").isFalse();
        assertThat(counting.attempts.get()).isZero();
        assertThat(locks.liveSubscriptions()).isZero();
    }

    @Test
    void anUninterruptibleWaitKeepsTheInterruptAndTheLock() throws Exception {
        LockHandle held = heldElsewhere("edge:keep");
        ProviderLockFactory locks = factory(backend);
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        Thread waiter = start(() -> {
            Thread.currentThread().interrupt();
            DistributedLock lock = locks.getLock("edge:keep");
            lock.lock();
            outcome.complete(Thread.currentThread().isInterrupted() && lock.isHeldByCurrentThread());
            lock.unlock();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && locks.liveSubscriptions() == 1);
        held.release();
        assertThat(outcome.get(3, TimeUnit.SECONDS))
                .as("held, and still interrupted")
                .isTrue();
    }

    @Test
    void aTimedWaitTakesALockFreedExactlyAtItsDeadlineAndGivesUpJustAfter() throws Exception {
        java.util.Map<String, WakeUpListenerRef> rooms = new java.util.concurrent.ConcurrentHashMap<>();
        ProviderLockFactory locks = factory(new ForwardingLockProvider(backend) {
            @Override
            public Subscription subscribe(String name, WakeUpListener listener) {
                rooms.put(name, new WakeUpListenerRef(listener));
                return super.subscribe(name, listener);
            }
        });
        // Freed by its lease at 5 s on the fake clock; no wake-up comes for a lapse, so the test
        // tells the room it may have missed one once the clock has moved.
        factory(backend.newClient()).acquire("edge:deadline", lease(Duration.ofSeconds(5)));
        CompletableFuture<Boolean> atDeadline = new CompletableFuture<>();
        Thread waiter = start(() -> {
            try {
                atDeadline.complete(locks.getLock("edge:deadline").tryLock(5, TimeUnit.SECONDS));
            } catch (Throwable e) {
                atDeadline.completeExceptionally(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && rooms.containsKey("edge:deadline"));
        ticker.advance(Duration.ofSeconds(5));
        rooms.get("edge:deadline").listener.missedNotifications();
        assertThat(atDeadline.get(5, TimeUnit.SECONDS)).isTrue();

        factory(backend.newClient())
                .acquire("edge:late", lease(Duration.ofSeconds(5).plusNanos(1)));
        CompletableFuture<Boolean> late = new CompletableFuture<>();
        Thread second = start(() -> {
            try {
                late.complete(locks.getLock("edge:late").tryLock(5, TimeUnit.SECONDS));
            } catch (Throwable e) {
                late.completeExceptionally(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(second) && rooms.containsKey("edge:late"));
        ticker.advance(Duration.ofSeconds(5));
        rooms.get("edge:late").listener.missedNotifications();
        assertThat(late.get(5, TimeUnit.SECONDS)).isFalse();
    }

    private record WakeUpListenerRef(LockProvider.WakeUpListener listener) {}

    @Test
    void forceUnlockReportsThisClientsHoldOfTheNameLostAndWakesItsWaiter() throws Exception {
        Scripted silent = new Scripted(backend) {
            @Override
            public Subscription subscribe(String name, WakeUpListener listener) {
                return () -> {}; // no wake-ups from the backend: only the force release's own can wake the waiter
            }
        };
        ProviderLockFactory locks = factory(silent);
        LockHandle h = locks.acquire("edge:force", lease(Duration.ofHours(1)));
        LockHandle other = locks.acquire("edge:force-other", lease(Duration.ofHours(1)));
        CompletableFuture<Boolean> took = new CompletableFuture<>();
        Thread waiter = start(() -> {
            DistributedLock lock = locks.getLock("edge:force");
            lock.lock();
            took.complete(lock.isHeldByCurrentThread());
            lock.unlock();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && silent.attempts.get() >= 2);
        assertThat(locks.getLock("edge:force").forceUnlock()).isTrue();
        assertThat(losses).extracting(LockLostException::lockName).containsExactly("edge:force");
        assertThat(h.lost().toCompletableFuture()).isCompleted();
        assertThat(other.isValid()).isTrue();
        assertThat(took.get(3, TimeUnit.SECONDS)).isTrue();
        waiter.join(3_000); // it unlocks after telling us
        assertThat(locks.getLock("edge:force").forceUnlock()).as("nothing held").isFalse();
    }

    @Test
    void aClosedFactoryRefusesForceUnlockAndInspection() {
        ProviderLockFactory locks = factory(backend.newClient());
        locks.close();
        // The factory refuses, before the closed provider would (whose message differs).
        assertThatThrownBy(() -> locks.getLock("edge:closed").forceUnlock())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("the lock factory is closed");
        assertThatThrownBy(() -> locks.getLock("edge:closed").isLocked())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("the lock factory is closed");
        assertThatThrownBy(() -> locks.tryAcquire("edge:closed"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void isLockedAsksTheBackend() throws Exception {
        ProviderLockFactory locks = factory(backend);
        assertThat(locks.getLock("edge:inspect").isLocked()).isFalse();
        heldElsewhere("edge:inspect");
        assertThat(locks.getLock("edge:inspect").isLocked()).isTrue();
    }

    @Test
    void aThreadWhoseLastReleaseTheBackendRefusedNoLongerHoldsTheLock() {
        java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean();
        ProviderLockFactory locks = factory(new Scripted(backend) {
            @Override
            public Release release(String name, String owner) {
                if (refuse.get()) {
                    throw new BackendUnavailableException(name, "release refused by the test", null);
                }
                return super.release(name, owner);
            }
        });
        DistributedLock lock = locks.getLock("edge:refused-thread");
        lock.lock();
        refuse.set(true);
        assertThatThrownBy(lock::unlock).isInstanceOf(BackendUnavailableException.class);
        refuse.set(false);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aBackendThatKeepsAnsweringStillHeldIsAskedAFewDozenTimesThenTheThreadIsDone() {
        Scripted stuck = new Scripted(backend) {
            @Override
            public Release release(String name, String owner) {
                super.release(name, owner);
                return Release.STILL_HELD;
            }
        };
        ProviderLockFactory locks = factory(stuck);
        DistributedLock lock = locks.getLock("edge:stuck");
        lock.lock();
        lock.unlock();
        assertThat(stuck.releases.get()).as("the first release and 64 more").isEqualTo(65);
        assertThat(lock.getHoldCount()).isZero();
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void locksWhoseNamesCollideInTheirHashAreStillDifferentLocksForAThread() {
        ProviderLockFactory locks = factory(backend);
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        DistributedLock aa = locks.getLock("Aa");
        DistributedLock bb = locks.getLock("BB");
        aa.lock();
        assertThat(bb.isHeldByCurrentThread()).isFalse();
        assertThat(bb.getHoldCount()).isZero();
        bb.lock();
        assertThat(bb.fencingToken()).isNotEqualTo(aa.fencingToken());
        bb.unlock();
        assertThat(aa.isHeldByCurrentThread()).isTrue();
        aa.unlock();
    }

    @Test
    void aHandleCannotBeTakenAgainOnceCloseHasBegun() throws Exception {
        java.util.concurrent.CountDownLatch abandoning = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch letGo = new java.util.concurrent.CountDownLatch(1);
        Scripted slowToLeave = new Scripted(backend.newClient()) {
            @Override
            public void abandon(String name, String owner, long waitId) {
                abandoning.countDown();
                try {
                    letGo.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.abandon(name, owner, waitId);
            }
        };
        ProviderLockFactory locks = factory(slowToLeave);
        LockHandle h = locks.acquire("edge:closing", lease(Duration.ofHours(1)));
        Thread waiter = start(() -> locks.getLock("edge:closing").lock());
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && locks.liveSubscriptions() == 1);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(locks::close);
        assertThat(abandoning.await(5, TimeUnit.SECONDS)).isTrue();
        // close() now waits for the woken waiter to leave; the handle is still held but the factory is closed.
        assertThatThrownBy(h::acquireAgain).isInstanceOf(LockException.class).hasMessageContaining("closed");
        assertThat(h.holdCount()).isEqualTo(1);
        letGo.countDown();
        closing.get(5, TimeUnit.SECONDS);
        assertThat(backend.inspect("edge:closing")).isEmpty();
    }

    @Test
    void aRefusedReleaseOfALostHoldWakesThisClientsWaitersToLookAgain() throws Exception {
        // The backend keeps holds ten times the lease asked for: the hold lapses here and is lost
        // while the backend still has it, so its release still matters.
        java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean();
        Scripted longer = new Scripted(backend) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                attempts.incrementAndGet();
                return delegate()
                        .tryAcquire(new LockRequest(
                                request.name(),
                                request.owner(),
                                request.lease().multipliedBy(10),
                                request.maxWait(),
                                request.waitId()));
            }

            @Override
            public Release release(String name, String owner) {
                if (refuse.get()) {
                    throw new BackendUnavailableException(name, "release refused by the test", null);
                }
                return super.release(name, owner);
            }
        };
        ProviderLockFactory locks = factory(longer);
        LockHandle h = locks.acquire("edge:lost-refused", lease(Duration.ofSeconds(1)));
        Thread waiter = start(() -> locks.getLock("edge:lost-refused").lock());
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && longer.attempts.get() >= 3);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(h.lost().toCompletableFuture()).isCompleted();
        int before = longer.attempts.get();

        refuse.set(true);
        assertThatThrownBy(h::release).isInstanceOf(LockLostException.class);
        // The refused release may have freed the lock: the waiter looks now, not at its 9 s hint.
        await().atMost(Duration.ofSeconds(3)).until(() -> longer.attempts.get() > before);
        refuse.set(false);
    }
}
