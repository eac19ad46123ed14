package io.lockkit;

import io.lockkit.Leadership.RevocationReason;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
 * each renewal, as the deadline moves), {@link #stepDown()} or {@link #close()}. {@link Terms}
 * makes the terms (none whose lease is over) and revokes them: marks the term (so
 * {@link Term#isValid()} and {@link #isLeader()} turn false at once), completes {@link Term#lost()}
 * on the revoking thread, and only then lets this leadership's thread call {@code onRevoked}; that
 * thread releases the lock only afterwards, so a step down or a close lets nobody else in before
 * the leader's callback has returned. Pauses (sitting out, back-off after a failure) are timers on the
 * factory's scheduler too, so a test's clock and scheduler drive every transition. The thread is
 * interrupted only while it is inside the campaign's wait, never in a callback.
 */
final class LockLeadership implements Leadership {

    /** close() waits for a callback at least this long, whatever the lease. */
    private static final long MIN_CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private enum State {
        NEW,
        RUNNING,
        CLOSED
    }

    private final LeadershipServices services;
    /** The factory's open leaderships: makes this one's thread, and forgets it when closed. */
    private final Leaderships leaderships;

    private final String name;
    private final LeadershipOptions.Resolved options;
    private final LockOptions lockOptions;
    private final LeaderCallbacks callbacks;
    private final Terms terms;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled on every change of the fields below. */
    private final Condition changed = lock.newCondition();

    // Guarded by lock.
    private State state = State.NEW;
    private @Nullable Thread thread;
    private boolean threadEnded;
    /** The thread is inside the campaign's wait, where an interrupt ends it. */
    private boolean inCampaign;
    /** A step down the thread has not yet turned into sitting out. */
    private boolean stepDownAsked;
    /** Sitting out or backing off. */
    private final CampaignPause pause;

    LockLeadership(
            LeadershipServices services, Leaderships leaderships, String name, LeadershipOptions.Resolved options) {
        this.services = services;
        this.leaderships = leaderships;
        this.name = name;
        this.options = options;
        this.lockOptions = LockOptions.builder()
                .waitForever()
                .watchdogLease(options.lease())
                .renewalInterval(options.renewalInterval())
                .build();
        this.callbacks = new LeaderCallbacks(name, options);
        this.terms = new Terms(services, name, options, lock, changed);
        this.pause = new CampaignPause(lock, changed, services.scheduler(), services.ticker());
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
                pause.rejoin();
                return this;
            }
            services.gate().ensureOpen(name);
            Thread t = leaderships.newThread(this::run, "lockkit-leadership-" + LockException.abbreviate(name));
            state = State.RUNNING;
            thread = t;
            t.start();
            return this;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Duration lease() {
        return options.lease();
    }

    @Override
    public boolean isLeader() {
        Term t = terms.current();
        return t != null && t.isValid();
    }

    @Override
    public Optional<Term> currentTerm() {
        Term t = terms.current();
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
                Term t = terms.current();
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
            pause.begin(options.rejoinDelay().toNanos()); // the sit-out runs from now
            t = terms.current();
            interruptCampaign();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (t != null) {
            terms.revoke(t, RevocationReason.STEPPED_DOWN);
            if (!onOwnThread() && !terms.completingLost()) {
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
            t = terms.current();
            th = thread;
            interruptCampaign();
            pause.cancelTimer();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (first) {
            leaderships.closed(this);
        }
        if (t != null) {
            terms.revoke(t, RevocationReason.CLOSED);
        }
        if (th == null || onOwnThread() || terms.completingLost()) {
            return; // the thread ends after the callback or lost() dependent that called this
        }
        if (!awaitThreadEnd(closeWaitNanos())) {
            LockHandle h;
            lock.lock();
            try {
                h = terms.handle();
            } finally {
                lock.unlock();
            }
            callbacks.callbackOverran(closeWaitNanos());
            if (h != null) {
                callbacks.release(h);
            }
        }
    }

    /** Whether this instance leads now, for health reports. */
    boolean leads() {
        return isLeader();
    }

    @Override
    public String toString() {
        Term t = terms.current();
        return "Leadership[" + LockException.abbreviate(name) + ", " + (t != null && t.isValid() ? t : "not leading")
                + "]";
    }

    // ---- the leadership thread ----

    private void run() {
        int failures = 0;
        try {
            while (awaitCampaign()) {
                LockHandle h;
                try {
                    h = campaign();
                } catch (RuntimeException e) {
                    if (services.gate().isClosed()) {
                        return; // the factory closes this leadership too
                    }
                    failures++;
                    callbacks.campaignFailed(failures, e);
                    backOff(failures);
                    continue;
                }
                if (failures > 0) {
                    callbacks.campaignsAgain(failures);
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
                left = terms.handle();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            if (left != null) {
                callbacks.release(left); // only when the thread ends abnormally while leading
            }
        }
    }

    /**
     * Waits while this leadership sits out or backs off (a step down began its sit-out already).
     *
     * @return false once closed
     */
    private boolean awaitCampaign() {
        lock.lock();
        try {
            boolean go = pause.await(() -> state == State.CLOSED);
            stepDownAsked = false; // the campaign and the term it ended are over; a sit-out was waited out
            return go;
        } finally {
            lock.unlock();
        }
    }

    private void backOff(int failures) {
        lock.lock();
        try {
            if (state != State.CLOSED && !stepDownAsked) {
                pause.backOff(failures, options.maxRetryDelay().toNanos());
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
            won = services.acquirer().acquire(name, lockOptions);
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
                callbacks.release(won); // won while stepping down: given back unannounced
                won = null;
            }
        }
        return won;
    }

    /**
     * Leads one term: announces it (unless its lease is over, see {@link Terms}), waits for its
     * revocation, tells the listeners, releases the lock.
     */
    private void lead(LockHandle h) {
        Hold hold = ((OwnedLockHandle) h).hold();
        Term t = terms.elect(hold);
        if (t == null || !begin(t, h)) {
            callbacks.release(h);
            return;
        }
        // revoke() throws nothing, so the stage this returns completes normally: nothing to check.
        var unused = hold.lost.whenComplete((loss, e) -> terms.revoke(t, LeaderCallbacks.reasonOf(hold.lossCause)));
        terms.watchExpiry(t);
        boolean announced = terms.announceable(t);
        if (announced) {
            services.events().elected(name, t.fencingToken());
            if (!callbacks.elected(t)) {
                stepDownAfterFailedElection();
                terms.revoke(t, RevocationReason.STEPPED_DOWN);
            }
        }
        RevocationReason reason = terms.awaitRevocation();
        if (announced) {
            services.events().revoked(name, t.fencingToken(), reason, t.revokedAtNanos() - hold.acquiredNanos);
            callbacks.revoked(t, reason);
        }
        callbacks.release(h);
        terms.ended();
    }

    /** Makes {@code t} the term being led, unless a close or a step down came first. */
    private boolean begin(Term t, LockHandle h) {
        lock.lock();
        try {
            if (state == State.CLOSED || stepDownAsked) {
                return false;
            }
            terms.begin(t, h);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** onElected threw: the instance steps down, and sits out as after {@link #stepDown()}. */
    private void stepDownAfterFailedElection() {
        lock.lock();
        try {
            if (state == State.RUNNING) {
                stepDownAsked = true;
                pause.begin(options.rejoinDelay().toNanos());
            }
        } finally {
            lock.unlock();
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
        awaitCondition(() -> terms.current() != t || threadEnded, nanos);
    }

    private boolean awaitThreadEnd(long nanos) {
        return awaitCondition(() -> threadEnded, nanos);
    }

    /** Waits for {@code done} (read under the lock) up to {@code nanos}, keeping an interrupt for later. */
    private boolean awaitCondition(java.util.function.BooleanSupplier done, long nanos) {
        return Conditions.awaitKeepingInterrupt(lock, changed, done, nanos);
    }
}
