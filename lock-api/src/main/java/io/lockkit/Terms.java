package io.lockkit;

import io.lockkit.Leadership.RevocationReason;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The terms of one {@link LockLeadership}: makes a term of each hold its campaign wins, keeps the
 * term being led, revokes a term once, and by a timer when its lease runs out. Thread-safe; the
 * state of the term being led is guarded by the leadership's lock, whose condition it signals.
 *
 * <p>Design.
 * <ul>
 * <li><b>No term with its lease over</b>: a term ends its revocation margin before its hold's
 *     lease does, so a hold won by an answer that came back late (the backend or the network
 *     stalled) can be handed out by the acquisition with lease left, yet none for the term. Such a
 *     term is confirmed by one renewal first, as acquisition confirms a hold whose whole lease ran
 *     out: announced with the renewal's lease if the backend still has the hold and the renewal
 *     came back in time; otherwise not made at all, and the campaign gives the hold back (its owner
 *     is the campaign's handle, unique to that hold, so a late release frees nothing newer).
 * <li><b>{@code lost()} before {@code onRevoked}</b>: revoking marks the term (so
 *     {@link Term#isValid()} is false at once), completes {@link Term#lost()} on the revoking
 *     thread, whose dependents run there, and only then tells the leadership, whose thread calls
 *     {@code onRevoked}; so the order holds whichever thread revoked the term. The revoking thread
 *     is noted meanwhile ({@link #completingLost()}): a {@code stepDown()} or {@code close()} that a
 *     dependent calls must not wait for the {@code onRevoked} that follows the dependent.
 * </ul>
 */
final class Terms {

    private static final System.Logger LOG = System.getLogger(LockLeadership.class.getName());

    private final Holds holds;
    private final java.time.Clock clock;
    private final String name;
    private final LeadershipOptions.Resolved options;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final ReentrantLock lock;
    /** The leadership's, signalled on every change of the fields below. */
    private final Condition changed;
    /** The thread completing a term's lost(), while it does. */
    private volatile @Nullable Thread completing;

    // Guarded by lock (current also read without it).
    /** The term being led, from its election until its lock was released. */
    private volatile @Nullable Term current;

    private @Nullable LockHandle handle;
    /** Why the current term ended, once it has and its lost() completed; for the leadership's thread. */
    private @Nullable RevocationReason pending;

    Terms(
            LeadershipServices services,
            String name,
            LeadershipOptions.Resolved options,
            ReentrantLock lock,
            Condition changed) {
        this.holds = services.holds();
        this.clock = services.clock();
        this.name = name;
        this.options = options;
        this.ticker = services.ticker();
        this.scheduler = services.scheduler();
        this.lock = lock;
        this.changed = changed;
    }

    /**
     * The term of {@code hold}, just won; null when its lease (less the margin) ran out before it
     * could be announced and one renewal did not bring it back (see the design notes). Called on
     * the leadership's thread.
     */
    @Nullable
    Term elect(Hold hold) {
        if (hasLeaseLeft(hold)) {
            return newTerm(hold);
        }
        long sent = ticker.nanoTime();
        try {
            if (!holds.confirm(hold.name, hold.owner, hold.lease())) {
                giveUp(hold, "the backend no longer has it", null);
                return null;
            }
        } catch (RuntimeException e) {
            giveUp(hold, "a renewal to confirm it failed", e);
            return null;
        }
        hold.renewed(sent);
        holds.watchdog().rescheduled(hold);
        if (!hasLeaseLeft(hold)) {
            giveUp(hold, "the renewal that confirmed it came back after the term's lease too", null);
            return null;
        }
        return newTerm(hold);
    }

    private boolean hasLeaseLeft(Hold hold) {
        return hold.deadlineNanos() - options.margin().toNanos() - ticker.nanoTime() > 0;
    }

    private Term newTerm(Hold hold) {
        return new Term(name, hold.token, hold, ticker, options.margin().toNanos(), clock.instant());
    }

    private void giveUp(Hold hold, String why, @Nullable RuntimeException failure) {
        LOG.log(
                System.Logger.Level.INFO,
                "leadership '" + LockException.abbreviate(name) + "': term " + hold.token + " was won after its lease"
                        + " (less the revocation margin) had run out, and " + why
                        + "; it is given back unannounced and the campaign goes on",
                failure);
    }

    /**
     * Whether {@code t}, just begun, is to be announced: not when its lease ran out or its hold was
     * lost since {@link #elect} (neither callback runs for it then). A term that a step down or a
     * close revoked meanwhile is announced, and its {@code onRevoked} follows, as for a term that
     * {@link Leadership#awaitTerm} may have handed out already.
     */
    boolean announceable(Term t) {
        RevocationReason r = t.revocation().orElse(null);
        if (r == null) {
            return !t.hasExpired(ticker.nanoTime());
        }
        return r == RevocationReason.STEPPED_DOWN || r == RevocationReason.CLOSED;
    }

    /** The term being led (valid or not), from its election until its lock was released; null when none. */
    @Nullable
    Term current() {
        return current;
    }

    /** Under the leadership's lock: the hold of the term being led, or null. */
    @Nullable
    LockHandle handle() {
        return handle;
    }

    /** Under the leadership's lock: makes {@code t}, won by {@code h}, the term being led. */
    void begin(Term t, LockHandle h) {
        current = t;
        handle = h;
        pending = null;
        changed.signalAll();
    }

    /** On the leadership's thread: waits until the term being led was revoked and its lost() completed. */
    RevocationReason awaitRevocation() {
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

    /** The term being led is over: its lock was released. */
    void ended() {
        lock.lock();
        try {
            current = null;
            handle = null;
            pending = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Revokes {@code t} when its lease has run out on this clock (less the margin), else looks again then. */
    void watchExpiry(Term t) {
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

    /**
     * Ends {@code t} for {@code reason}, once: marks it, completes its {@code lost()} here, then
     * tells the leadership. Called on any thread.
     */
    void revoke(Term t, RevocationReason reason) {
        if (!t.markRevoked(reason, ticker.nanoTime())) {
            return;
        }
        completing = Thread.currentThread();
        try {
            t.completeLost(reason);
        } finally {
            completing = null;
            lock.lock();
            try {
                if (current == t) {
                    pending = reason;
                    changed.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Whether the calling thread is completing a term's {@code lost()}: inside one of its dependents. */
    boolean completingLost() {
        return completing == Thread.currentThread();
    }
}
