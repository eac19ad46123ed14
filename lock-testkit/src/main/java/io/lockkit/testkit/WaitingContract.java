package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Waiting" ({@link LockContractTest.Waiting}): waits honour timeouts and interrupts, and end soon
 * after a release or a lapse.
 */
abstract class WaitingContract extends ContractGroup {

    WaitingContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("tryLock with a timeout returns false within its bounds")
    void timedTryLockReturnsWithinBounds() throws Exception {
        String name = name();
        client().getLock(name).lock();
        DistributedLock b = client().getLock(name);
        long start = System.nanoTime();
        boolean acquired = returnsWithin(
                Duration.ofSeconds(3),
                () -> b.tryLock(scaled(Duration.ofMillis(400)).toMillis(), TimeUnit.MILLISECONDS));
        assertThat(acquired).isFalse();
        assertThat(millisSince(start))
                .isGreaterThanOrEqualTo(scaled(Duration.ofMillis(380)).toMillis());
    }

    @Test
    @DisplayName("acquire throws LockNotAcquiredException naming the lock when the wait runs out")
    void acquireThrowsWhenTheWaitRunsOut() throws Exception {
        String name = name();
        client().getLock(name).lock();
        DistributedLockFactory other = client();
        assertThatThrownBy(() -> returnsWithin(
                        Duration.ofSeconds(3),
                        () -> other.acquire(name, LockOptions.waitAtMost(scaled(Duration.ofMillis(200))))))
                .isInstanceOf(LockNotAcquiredException.class)
                .satisfies(e -> assertThat(((LockException) e).lockName()).isEqualTo(name));
    }

    @Test
    @DisplayName("a waiter acquires soon after release, far sooner than the remaining lease")
    void waiterAcquiresSoonAfterRelease() throws Exception {
        String name = name();
        Duration longLease = scaled(Duration.ofSeconds(30));
        DistributedLock holder = client(longLease, e -> {}).getLock(name);
        holder.lock();
        DistributedLock waiter = client(longLease, e -> {}).getLock(name);
        AtomicLong acquiredAt = new AtomicLong();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread t = start("waiter", () -> {
            waiting.countDown();
            waiter.lock();
            acquiredAt.set(System.nanoTime());
            waiter.unlock();
        });
        waiting.await();
        Thread.sleep(scaled(Duration.ofMillis(300)).toMillis()); // let the waiter park
        long released = System.nanoTime();
        holder.unlock();
        t.join(scaled(Duration.ofSeconds(10)).toMillis());
        assertThat(acquiredAt.get()).as("the waiter acquired").isNotZero();
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - released))
                .isLessThan(scaled(Duration.ofSeconds(2)).toMillis());
    }

    @Test
    @DisplayName("20 waiters on 2 clients all acquire in turn")
    void manyWaitersAcquireInTurn() throws Exception {
        String name = name();
        LockHandle holder = client().acquire(name, LockOptions.noWait());
        AtomicInteger done = new AtomicInteger();
        List<Runnable> tasks = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            DistributedLock lock = client().getLock(name);
            for (int i = 0; i < 10; i++) {
                tasks.add(() -> {
                    lock.lock();
                    done.incrementAndGet();
                    lock.unlock();
                });
            }
        }
        start("releaser", () -> {
            LockSupport.parkNanos(scaled(Duration.ofMillis(200)).toNanos());
            holder.release();
        });
        runAll(tasks, Duration.ofSeconds(30));
        assertThat(done).hasValue(20);
    }

    @Test
    @DisplayName("lockInterruptibly stops waiting when interrupted")
    void lockInterruptiblyHonoursInterruption() throws Exception {
        String name = name();
        client().getLock(name).lock();
        DistributedLock b = client().getLock(name);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread t = start("interruptible", () -> {
            try {
                b.lockInterruptibly();
                outcome.set(new AssertionError("acquired a held lock"));
            } catch (InterruptedException e) {
                outcome.set(e);
            }
        });
        Thread.sleep(scaled(Duration.ofMillis(200)).toMillis());
        t.interrupt();
        t.join(scaled(Duration.ofSeconds(3)).toMillis());
        assertThat(t.isAlive()).as("still waiting after the interrupt").isFalse();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    @DisplayName("a timed tryLock stops waiting when interrupted")
    void timedTryLockHonoursInterruption() throws Exception {
        String name = name();
        client().getLock(name).lock();
        DistributedLock b = client().getLock(name);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = start("timed", () -> {
            try {
                outcome.set(b.tryLock(60, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                outcome.set(e);
            }
        });
        Thread.sleep(scaled(Duration.ofMillis(200)).toMillis());
        t.interrupt();
        t.join(scaled(Duration.ofSeconds(3)).toMillis());
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    @DisplayName("lock() keeps waiting through an interrupt and keeps the interrupt flag")
    void lockKeepsWaitingAndTheInterruptFlag() throws Exception {
        String name = name();
        DistributedLock holder = client().getLock(name);
        holder.lock();
        DistributedLock b = client().getLock(name);
        AtomicBoolean acquired = new AtomicBoolean();
        AtomicBoolean flag = new AtomicBoolean();
        Thread t = start("uninterruptible", () -> {
            b.lock();
            acquired.set(true);
            flag.set(Thread.currentThread().isInterrupted());
            b.unlock();
        });
        Thread.sleep(scaled(Duration.ofMillis(200)).toMillis());
        t.interrupt();
        Thread.sleep(scaled(Duration.ofMillis(300)).toMillis());
        assertThat(acquired).as("acquired while the lock was held").isFalse();
        holder.unlock();
        t.join(scaled(Duration.ofSeconds(5)).toMillis());
        assertThat(acquired).isTrue();
        assertThat(flag).as("interrupt flag kept").isTrue();
    }

    @Test
    @DisplayName(
            "a waiter that no release wakes takes a lapsed lock soon after the lease: retry hints are not too long")
    void waiterTakesALapsedLockSoonAfterTheLease() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        Duration lease = scaled(Duration.ofSeconds(1));
        DistributedLock holder = client().getLock(name);
        DistributedLock b = client().getLock(name); // both clients made before the clock starts
        holder.lock(lease);
        long start = System.nanoTime(); // the lease began before this, on the backend
        // No release: nothing wakes the waiter, which has only the backend's retry hint to go by.
        long tookMillis = returnsWithin(Duration.ofSeconds(25), () -> {
            assertThat(b.tryLock(scaled(Duration.ofSeconds(20)), null))
                    .as("the waiter took the lapsed lock")
                    .isTrue();
            long took = millisSince(start);
            b.unlock();
            return took;
        });
        // Four leases: room for a busy machine's scheduling, yet well short of a hint ten times the lease.
        assertThat(tookMillis)
                .as("millis until the waiter had the lock of a %s lease", lease)
                .isLessThan(lease.multipliedBy(4).toMillis());
    }

    @Test
    @DisplayName(
            "a waiter that no release wakes makes a handful of attempts, not hundreds: busy answers do not say \"try again now\"")
    void busyAnswersDoNotMakeAWaiterPoll() throws Exception {
        String name = name();
        client(scaled(Duration.ofSeconds(30)), e -> {}).getLock(name).lock();
        CountingLockProvider counting = new CountingLockProvider(provider());
        DistributedLockFactory waiter = clientOver(counting);
        Duration wait = scaled(Duration.ofSeconds(1));
        assertThat(returnsWithin(Duration.ofSeconds(10), () -> waiter.tryAcquire(name, LockOptions.waitAtMost(wait))))
                .as("a wait on a lock held throughout")
                .isEmpty();
        // At most one attempt per 50 ms, and a few more around the start and the end of the wait.
        assertThat(counting.acquisitions())
                .as("attempts in a wait of %s on a lock held throughout", wait)
                .isLessThanOrEqualTo(wait.toMillis() / 50 + 4);
    }

    /** Remembers the retry hint of its latest busy answer. */
    private static final class Hinted extends ForwardingLockProvider {
        final AtomicReference<@Nullable Duration> latest = new AtomicReference<>();

        Hinted(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest r) {
            Acquisition a = super.tryAcquire(r);
            if (!a.isAcquired()) {
                latest.set(a.retryAfter());
            }
            return a;
        }

        /** Waits until an attempt through this provider found the lock busy. */
        void busy(Duration bound, String who) {
            await(who + " found the lock busy")
                    .atMost(bound)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> latest.get() != null);
        }
    }

    /**
     * The shorter of the waiters' latest retry hints once both are longer than {@code least}, as
     * they are while their backend notifies them (a backend may poll until its notifications are
     * set up); skips the test when they stay shorter.
     */
    private Duration longHints(Duration least, Hinted... waiters) {
        java.util.function.Supplier<Duration> shortest = () -> java.util.Arrays.stream(waiters)
                .map(w -> w.latest.get())
                .map(h -> h == null ? Duration.ZERO : h)
                .min(Duration::compareTo)
                .orElse(Duration.ZERO);
        try {
            await("retry hints longer than " + least)
                    .atMost(scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> shortest.get().compareTo(least) > 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            assumeTrue(
                    false,
                    "the provider's waiters poll (retry hint " + shortest.get()
                            + "): only hints would show a lost wake-up");
        }
        return shortest.get();
    }

    /** A client over {@code provider} whose holds have a watchdog lease of {@code lease}; closed after the test. */
    private DistributedLockFactory clientOver(LockProvider provider, Duration lease) {
        return closeAfterTest(DistributedLockFactory.builder(provider)
                .defaultOptions(LockOptions.builder().watchdogLease(lease).build())
                .subscriptionLinger(Duration.ZERO)
                .build());
    }

    /** Runs {@code call} on a kit thread; the result completes when it returns or throws. */
    private <T> CompletableFuture<T> onKitThread(String label, java.util.concurrent.Callable<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        start(label, () -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    @Test
    @DisplayName(
            "after a waiter of a third client gives up, a release wakes the other two waiters in turn, long before their retry hints")
    void releaseWakesTheRemainingWaitersAfterOneGaveUp() throws Exception {
        // A backend that drops the whole wait queue with one waiter's entry (rather than the entry)
        // hands the released lock to nobody and tells nobody: the others wait for their retry hints.
        String name = name();
        Duration longLease = scaled(Duration.ofSeconds(30)); // every retry hint: only a wake-up is sooner
        LockHandle held = client(longLease, e -> {}).acquire(name, LockOptions.noWait());
        Hinted first = new Hinted(provider());
        Hinted quitter = new Hinted(provider());
        Hinted second = new Hinted(provider());
        Duration bound = scaled(Duration.ofSeconds(5));
        DistributedLockFactory firstClient = clientOver(first, longLease);
        CompletableFuture<LockHandle> firstGot =
                onKitThread("first", () -> firstClient.acquire(name, waitFor(Duration.ofSeconds(60))));
        first.busy(bound, "the first waiter");
        DistributedLockFactory quitting = clientOver(quitter, longLease);
        CompletableFuture<Optional<LockHandle>> gaveUp =
                onKitThread("quitter", () -> quitting.tryAcquire(name, waitFor(Duration.ofSeconds(1))));
        quitter.busy(bound, "the waiter that gives up");
        CompletableFuture<LockHandle> secondGot = clientOver(second, longLease)
                .acquireAsync(name, waitFor(Duration.ofSeconds(60)))
                .toCompletableFuture();
        second.busy(bound, "the second (asynchronous) waiter");
        assertThat(gaveUp.get(bound.toMillis(), TimeUnit.MILLISECONDS))
                .as("the wait that gives up")
                .isEmpty();
        Duration hint = longHints(bound.multipliedBy(2), first, second);
        long releasedAt = System.nanoTime();
        held.release();
        CompletableFuture<?> either = CompletableFuture.anyOf(firstGot, secondGot);
        assertThat(either)
                .as("a waiter has the lock within %s of the release (retry hints %s or more)", bound, hint)
                .succeedsWithin(bound);
        CompletableFuture<LockHandle> next = firstGot.isDone() ? firstGot : secondGot;
        CompletableFuture<LockHandle> last = next == firstGot ? secondGot : firstGot;
        long firstTook = millisSince(releasedAt);
        next.join().release();
        assertThat(last)
                .as(
                        "the other waiter has the lock within %s of the next release (the first took %d ms; retry hints %s or more)",
                        bound, firstTook, hint)
                .succeedsWithin(bound);
        last.join().release();
    }

    @Test
    @DisplayName("tryLock with a negative time does not wait, as Lock's contract says")
    void negativeTimeDoesNotWait() throws Exception {
        String name = name();
        client().getLock(name).lock();
        long start = System.nanoTime();
        assertThat(client().getLock(name).tryLock(-5, TimeUnit.SECONDS)).isFalse();
        assertThat(millisSince(start)).isLessThan(scaled(Duration.ofSeconds(2)).toMillis());
    }
}
