package io.lockkit;

import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LockObserver.LossCause;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@link Leadership} as a lock held by a {@link LockHandle} of the factory's core: a term is one
 * hold, renewed by the factory's watchdog, its loss reported by the core.
 *
 * <p>Design: one thread per leadership campaigns, runs the callbacks and releases. It waits for the
 * lock with the factory's ordinary wait (the provider's wake-ups, no polling), leads until the term
 * is revoked, calls {@code onRevoked}, releases, and campaigns again (after a step down, once the
 * rejoin delay has passed). A term is revoked by whichever comes first: the hold's loss as the core
 * reports it, a timer at the lease's end less the margin on the factory's scheduler (re-armed after
 * each renewal, as the deadline moves), {@link #stepDown()} or {@link #close()}. Revoking marks the
 * term (so {@link Term#isValid()} and {@link #isLeader()} turn false at once) and completes
 * {@link Term#lost()} on the revoking thread; the leadership thread then calls {@code onRevoked}
 * and only afterwards releases the lock, so a step down or a close lets nobody else in before the
 * leader's callback has returned. Pauses (sitting out, back-off after a failure) are timers on the
 * factory's scheduler too, so a test's clock and scheduler drive every transition. The thread is
 * interrupted only while it is inside the campaign's wait, never in a callback.
 */
final class LockLeadership implements Leadership {

    private static final System.Logger LOG = System.getLogger(LockLeadership.class.getName());
    /** The first pause after a failed campaign attempt; it doubles up to the options' maximum. */
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** close() waits for a callback at least this long, whatever the lease. */
    private static final long MIN_CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private enum State {
        NEW,
        RUNNING,
        CLOSED
    }

    private final ProviderLockFactory factory;
    private final String name;
    private final LeadershipOptions.Resolved options;
    private final LockOptions lockOptions;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled on every change of the fields below. */
    private final Condition changed = lock.newCondition();

    // Guarded by lock (term also read without it, for isLeader).
    private State state = State.NEW;
    private @Nullable Thread thread;
    private boolean threadEnded;
    /** The thread is inside the campaign's wait, where an interrupt ends it. */
    private boolean inCampaign;
    /** The term being led, from its election until its lock was released. */
    private volatile @Nullable Term term;

    private @Nullable LockHandle handle;
    /** Why the current term ended, once it has; for the thread. */
    private @Nullable RevocationReason pending;
    /** A step down the thread has not yet turned into sitting out. */
    private boolean stepDownAsked;
    /** Sitting out or backing off until {@link #pauseUntil} (on the ticker). */
    private boolean paused;

    private long pauseUntil;
    /** start() during a pause: campaign now. */
    private boolean rejoinNow;
    /** Numbers the pauses, so that a late wake-up of an earlier one does nothing. */
    private long pauseSequence;

    private @Nullable ScheduledFuture<?> wakeUp;

    LockLeadership(ProviderLockFactory factory, String name, LeadershipOptions.Resolved options) {
        this.factory = factory;
        this.name = name;
        this.options = options;
        this.lockOptions = LockOptions.builder()
                .waitForever()
                .watchdogLease(options.lease())
                .renewalInterval(options.renewalInterval())
                .build();
        this.ticker = factory.ticker;
        this.scheduler = factory.scheduler;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Leadership start() {
        lock.lock();
        try {
            if (state == State.CLOSED) {
                throw new IllegalStateException("leadership '" + LockException.abbreviate(name) + "' was closed");
            }
            if (state == State.RUNNING) {
                if (paused) {
                    rejoinNow = true;
                    changed.signalAll();
                }
                return this;
            }
            factory.ensureOpen(name);
            Thread t = factory.newLeadershipThread(this::run, "lockkit-leadership-" + LockException.abbreviate(name));
            state = State.RUNNING;
            thread = t;
            t.start();
            return this;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isLeader() {
        Term t = term;
        return t != null && t.isValid();
    }

    @Override
    public Optional<Term> currentTerm() {
        Term t = term;
        return t != null && t.isValid() ? Optional.of(t) : Optional.empty();
    }

    @Override
    public Optional<Term> awaitTerm(Duration timeout) throws InterruptedException {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive; was " + timeout);
        }
        long end = System.nanoTime() + Math.min(timeout.toNanos(), LockOptions.MAX_DURATION.toNanos());
        lock.lockInterruptibly();
        try {
            if (state == State.NEW) {
                throw new IllegalStateException(
                        "leadership '" + LockException.abbreviate(name) + "' was not started: call start() first");
            }
            while (true) {
                Term t = term;
                if (t != null && t.isValid()) {
                    return Optional.of(t);
                }
                long left = end - System.nanoTime();
                if (state == State.CLOSED || left <= 0) {
                    return Optional.empty();
                }
                // A term that runs out is revoked by a timer, which signals: no need to wake earlier.
                changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void stepDown() {
        Term t;
        lock.lock();
        try {
            if (state != State.RUNNING) {
                return;
            }
            stepDownAsked = true;
            beginPause(options.rejoinDelay().toNanos()); // the sit-out runs from now
            t = term;
            interruptCampaign();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (t != null) {
            revoke(t, RevocationReason.STEPPED_DOWN);
            if (!onOwnThread()) {
                awaitReleased(t, closeWaitNanos());
            }
        }
    }

    @Override
    public void close() {
        Term t;
        Thread th;
        boolean first;
        lock.lock();
        try {
            first = state != State.CLOSED;
            state = State.CLOSED;
            t = term;
            th = thread;
            interruptCampaign();
            if (wakeUp != null) {
                wakeUp.cancel(false);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (first) {
            factory.leadershipClosed(this);
        }
        if (t != null) {
            revoke(t, RevocationReason.CLOSED);
        }
        if (th == null || onOwnThread()) {
            return;
        }
        if (!awaitThreadEnd(closeWaitNanos())) {
            LockHandle h;
            lock.lock();
            try {
                h = handle;
            } finally {
                lock.unlock();
            }
            LOG.log(
                    System.Logger.Level.WARNING,
                    "leadership ''{0}'': a callback has not returned {1} ms after close(); releasing the lock anyway",
                    LockException.abbreviate(name),
                    TimeUnit.NANOSECONDS.toMillis(closeWaitNanos()));
            if (h != null) {
                release(h);
            }
        }
    }

    /** Whether this instance leads now, for health reports. */
    boolean leads() {
        return isLeader();
    }

    @Override
    public String toString() {
        Term t = term;
        return "Leadership[" + LockException.abbreviate(name) + ", " + (t != null && t.isValid() ? t : "not leading")
                + "]";
    }

    // ---- the leadership thread ----

    private void run() {
        int failures = 0;
        try {
            while (pause()) {
                LockHandle h;
                try {
                    h = campaign();
                } catch (RuntimeException e) {
                    if (factory.isClosed()) {
                        return; // the factory closes this leadership too
                    }
                    failures++;
                    logFailure(failures, e);
                    backOff(failures);
                    continue;
                }
                if (failures > 0) {
                    LOG.log(
                            System.Logger.Level.INFO,
                            "leadership ''{0}'': campaigning again after {1} failed attempt(s)",
                            LockException.abbreviate(name),
                            failures);
                    failures = 0;
                }
                if (h != null) {
                    lead(h);
                }
            }
        } finally {
            LockHandle left;
            lock.lock();
            try {
                threadEnded = true;
                left = handle;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            if (left != null) {
                release(left); // only when the thread ends abnormally while leading
            }
        }
    }

    /**
     * Waits while this leadership sits out or backs off (a step down began its sit-out already).
     *
     * @return false once closed
     */
    private boolean pause() {
        lock.lock();
        try {
            while (true) {
                if (state == State.CLOSED) {
                    return false;
                }
                stepDownAsked = false; // the campaign and the term it ended are over; the sit-out remains
                if (!paused) {
                    return true;
                }
                long left = pauseUntil - ticker.nanoTime();
                if (rejoinNow || left <= 0) {
                    endPause();
                    return true;
                }
                if (wakeUp == null) {
                    // No scheduler to wake us (it refused the timer): wait on the clock instead.
                    try {
                        changed.awaitNanos(left);
                    } catch (InterruptedException e) {
                        // an interrupt meant for the campaign's wait: look again
                    }
                } else {
                    changed.awaitUninterruptibly();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Starts a pause of {@code nanos}, woken by a timer on the factory's scheduler. Under the lock. */
    private void beginPause(long nanos) {
        paused = true;
        rejoinNow = false;
        pauseUntil = ticker.nanoTime() + nanos;
        long sequence = ++pauseSequence;
        if (wakeUp != null) {
            wakeUp.cancel(false);
        }
        try {
            wakeUp = scheduler.schedule(() -> wake(sequence), nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            wakeUp = null;
        }
    }

    private void endPause() {
        paused = false;
        rejoinNow = false;
        if (wakeUp != null) {
            wakeUp.cancel(false);
            wakeUp = null;
        }
    }

    private void wake(long sequence) {
        lock.lock();
        try {
            if (sequence == pauseSequence) {
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private void backOff(int failures) {
        long cap = options.maxRetryDelay().toNanos();
        long delay = failures >= 20 ? cap : Math.min(cap, FIRST_RETRY_NANOS << (failures - 1));
        // Jitter, so that instances that failed together do not all come back in the same instant.
        long jittered = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
        lock.lock();
        try {
            if (state != State.CLOSED && !stepDownAsked) {
                beginPause(jittered);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for the lock with the factory's wait.
     *
     * @return the hold, or null when a step down or a close ended the campaign
     */
    private @Nullable LockHandle campaign() {
        lock.lock();
        try {
            if (state == State.CLOSED || stepDownAsked) {
                return null;
            }
            inCampaign = true;
        } finally {
            lock.unlock();
        }
        LockHandle won = null;
        try {
            won = factory.acquire(name, lockOptions);
        } catch (InterruptedException e) {
            // a step down or a close ended the wait (the loop looks at which)
        } finally {
            boolean giveBack;
            lock.lock();
            try {
                inCampaign = false;
                Thread.interrupted(); // an interrupt for the wait that came after it ended
                giveBack = won != null && (state == State.CLOSED || stepDownAsked);
            } finally {
                lock.unlock();
            }
            if (giveBack && won != null) {
                release(won); // won while stepping down: given back unannounced
                won = null;
            }
        }
        return won;
    }

    /** Leads one term: announces it, waits for its revocation, tells the listeners, releases the lock. */
    private void lead(LockHandle h) {
        Hold hold = ((OwnedLockHandle) h).hold();
        Term t = new Term(name, hold.token, hold, ticker, options.margin().toNanos());
        lock.lock();
        try {
            if (state != State.CLOSED && !stepDownAsked) {
                term = t;
                handle = h;
                pending = null;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (term != t) {
            release(h);
            return;
        }
        // revoke() throws nothing, so the stage this returns completes normally: nothing to check.
        var unused = hold.lost.whenComplete((loss, e) -> revoke(t, reasonOf(hold.lossCause)));
        watchExpiry(t);
        factory.events.elected(name, t.fencingToken());
        if (!callElected(t)) {
            lock.lock();
            try {
                if (state == State.RUNNING) {
                    stepDownAsked = true;
                    beginPause(options.rejoinDelay().toNanos());
                }
            } finally {
                lock.unlock();
            }
            revoke(t, RevocationReason.STEPPED_DOWN);
        }
        RevocationReason reason = awaitRevocation();
        factory.events.revoked(name, t.fencingToken(), reason, t.revokedAtNanos() - hold.acquiredNanos);
        callRevoked(t, reason);
        release(h);
        lock.lock();
        try {
            term = null;
            handle = null;
            pending = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Revokes {@code t} when its lease has run out on this clock (less the margin), else looks again then. */
    private void watchExpiry(Term t) {
        if (t.revocation().isPresent()) {
            return;
        }
        long now = ticker.nanoTime();
        if (t.hasExpired(now)) {
            revoke(t, RevocationReason.LEASE_EXPIRED);
            return;
        }
        long left = t.endNanos() - now;
        try {
            // Not cancelled when the term ends early: it then finds the term revoked and stops.
            var unused = scheduler.schedule(() -> watchExpiry(t), left, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // The factory's scheduler is gone: the factory is closing, and closes this leadership.
        }
    }

    /** Ends {@code t} for {@code reason}, once; called on any thread. */
    private void revoke(Term t, RevocationReason reason) {
        if (!t.markRevoked(reason, ticker.nanoTime())) {
            return;
        }
        lock.lock();
        try {
            if (term == t) {
                pending = reason;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        t.completeLost(reason);
    }

    private RevocationReason awaitRevocation() {
        lock.lock();
        try {
            while (pending == null) {
                changed.awaitUninterruptibly();
            }
            return pending;
        } finally {
            lock.unlock();
        }
    }

    private static RevocationReason reasonOf(@Nullable LossCause cause) {
        if (cause == null) {
            return RevocationReason.NOT_HELD;
        }
        return switch (cause) {
            case LEASE_EXPIRED -> RevocationReason.LEASE_EXPIRED;
            case NOT_HELD -> RevocationReason.NOT_HELD;
            case FORCE_RELEASED -> RevocationReason.FORCE_RELEASED;
            case FACTORY_CLOSED -> RevocationReason.CLOSED;
        };
    }

    /** Calls the onElected listeners; returns false when one threw. */
    private boolean callElected(Term t) {
        for (Consumer<? super Term> l : options.elected()) {
            try {
                l.accept(t);
            } catch (RuntimeException | Error e) {
                rethrowFatal(e);
                LOG.log(
                        System.Logger.Level.WARNING,
                        "leadership '" + LockException.abbreviate(name) + "': onElected failed for " + t
                                + "; stepping down",
                        e);
                Thread.interrupted();
                return false;
            }
        }
        Thread.interrupted(); // a callback's interrupt must not end the next campaign
        return true;
    }

    private void callRevoked(Term t, RevocationReason reason) {
        for (BiConsumer<? super Term, RevocationReason> l : options.revoked()) {
            try {
                l.accept(t, reason);
            } catch (RuntimeException | Error e) {
                rethrowFatal(e);
                LOG.log(
                        System.Logger.Level.WARNING,
                        "leadership '" + LockException.abbreviate(name) + "': onRevoked failed for " + t,
                        e);
            }
        }
        Thread.interrupted();
    }

    private static void rethrowFatal(Throwable e) {
        if (e instanceof VirtualMachineError v) {
            throw v;
        }
    }

    /** Releases a term's lock, whatever became of it; a failure leaves it to its lease. */
    private void release(LockHandle h) {
        try {
            h.close();
        } catch (LockLostException e) {
            // lost already: nothing left to release
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "leadership '" + LockException.abbreviate(name) + "': releasing failed; the lease will lapse",
                    e);
        }
    }

    private void logFailure(int failures, RuntimeException e) {
        if (failures == 1) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "leadership '" + LockException.abbreviate(name) + "': campaigning failed; retrying (further"
                            + " failures are logged at DEBUG until an attempt succeeds)",
                    e);
        } else {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "leadership '" + LockException.abbreviate(name) + "': campaigning failed again (" + failures
                            + " in a row)",
                    e);
        }
    }

    // ---- helpers of stepDown and close ----

    /** Under the lock: ends the campaign's wait, if the thread is in it. */
    private void interruptCampaign() {
        Thread t = thread;
        if (inCampaign && t != null) {
            t.interrupt();
        }
    }

    private boolean onOwnThread() {
        return Thread.currentThread() == thread;
    }

    private long closeWaitNanos() {
        return Math.max(MIN_CLOSE_WAIT_NANOS, options.lease().toNanos());
    }

    /** Waits until {@code t} is no longer the term being led (its lock released). */
    private void awaitReleased(Term t, long nanos) {
        awaitCondition(() -> term != t || threadEnded, nanos);
    }

    private boolean awaitThreadEnd(long nanos) {
        return awaitCondition(() -> threadEnded, nanos);
    }

    /** Waits for {@code done} (read under the lock) up to {@code nanos}, keeping an interrupt for later. */
    private boolean awaitCondition(java.util.function.BooleanSupplier done, long nanos) {
        long end = System.nanoTime() + nanos;
        boolean interrupted = false;
        lock.lock();
        try {
            while (!done.getAsBoolean()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
