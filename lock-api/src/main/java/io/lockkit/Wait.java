package io.lockkit;

import io.lockkit.LockObserver.Outcome;
import io.lockkit.spi.Acquisition;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One thread's wait for one lock: turns the provider's single attempts into a wait. Used once, by
 * the waiting thread only (or by an {@link AsyncWait}'s steps, one at a time); what it uses of the
 * factory comes in one {@link WaitServices}.
 *
 * <p>Design: the steps, in order.
 * <ol>
 * <li><b>First attempt</b>, after joining the name's room in {@link WaitQueues}, so no wake-up
 *     that follows the attempt can miss this thread. A wait of zero is this attempt alone, with no
 *     room and no wait id.
 * <li><b>Subscribe and retry</b>: the first busy answer subscribes the room to the backend's
 *     release notifications; a release may have slipped by before the subscription was in place,
 *     so one more attempt follows, for every waiter whose first attempt went out before it was.
 * <li><b>Park</b> until woken, the provider's retry hint (at least {@link #MIN_RETRY_NANOS}) or
 *     the deadline, then attempt again.
 * <li><b>Direct grant</b>: a release by this client may have granted the lock to this wait
 *     outright; the releasing thread left the token with the waiter, so no call is needed. A
 *     release by another client may have too, which the backend announces ({@link
 *     io.lockkit.spi.LockProvider.WakeUpListener#granted}); its lease runs from this wait's latest
 *     attempt, the last one that found the lock busy, since the backend answered that attempt
 *     before it granted the lock (every attempt is answered before the next is sent, and one that
 *     met the grant would have taken it). Such a lease may be shorter than the one asked for (the
 *     backend's claim timeout, so that a waiter that died costs no more): a watchdog hold takes it
 *     as its first lease, renewed early. A heard grant is handed out only while more than half of
 *     its lease is left (the wait's latest attempt may be long past); otherwise, and for an explicit
 *     lease longer than the heard one, one renewal confirms it first, as below.
 * <li><b>Last look</b>: at the deadline, one attempt that does not wait, so a lock freed exactly
 *     then is not missed.
 * <li><b>Lost already?</b> A hold won by a request whose answer came back after the lease ran out
 *     (the backend or the network stalled: the lease runs from when the request was sent) is not
 *     handed out as it is. One renewal asks the backend: if it still has the hold, the renewal's
 *     lease (from when it was sent) is the one handed out; if not, the wait goes on, trying again
 *     within its time or reporting that it did not get the lock. A renewal never frees anything,
 *     so one that arrives late cannot meet a newer hold of the same owner (a release sent to give
 *     the hold back could, and free it). A renewal that fails ends the wait with the failure, and
 *     a thread's next lock call first releases what the backend may still hold for it. Not for a
 *     reentrant acquisition of a hold this client still counts on: that hold's own lease stands,
 *     and a renewal with this request's lease could shorten it.
 * <li><b>Abandon</b>: a wait that ends without the lock (deadline, interrupt, close, failure)
 *     leaves the backend's queue, which also gives back a grant that raced its end; also when the
 *     factory is closing, which waits for this through {@link InFlight}.
 * </ol>
 */
final class Wait {

    // The factory's logger, as before the wait moved here: the same log category.
    private static final System.Logger LOG = System.getLogger(ProviderLockFactory.class.getName());
    /** A provider that answers "try again now" is not retried in a tighter loop than this. */
    static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final WaitServices services;
    private final String name;
    private final String owner;
    private final ResolvedOptions options;
    private final boolean interruptible;
    /** When the call started, on the ticker: the wait runs from here. */
    private final long start;

    private final long deadline;
    /** The token of the owner's hold of the name that this client still counts on, or 0 (see "Lost already?"). */
    private final long heldToken;

    private long waitId;
    /** When the latest attempt was sent: a hold it wins runs from here. */
    private long sent;

    /** The latest busy answer (its retry hint); before the first attempt, none. */
    private Acquisition busy = Acquisition.busy(Duration.ZERO);

    private boolean acquired;
    private boolean waiting;
    private boolean interrupted;
    private boolean expired;

    Wait(
            WaitServices services,
            String name,
            String owner,
            ResolvedOptions options,
            boolean interruptible,
            long start,
            long heldToken) {
        this.services = services;
        this.name = name;
        this.owner = owner;
        this.options = options;
        this.interruptible = interruptible;
        this.start = start;
        this.deadline = options.waitsForever() ? 0 : start + options.maxWait().toNanos();
        this.heldToken = heldToken;
    }

    /**
     * Waits for the lock.
     *
     * @return the grant, or null when the wait ran out
     * @throws InterruptedException when interrupted, if interruptible (else the interrupt is kept)
     * @throws LockException when the factory closed meanwhile
     */
    @Nullable
    Grant run() throws InterruptedException {
        if (options.triesOnce()) {
            return tryOnce();
        }
        if (interruptible && Thread.interrupted()) {
            throw services.events().interrupted(name, options.claim(), start);
        }
        WaitQueues.Waiter w = join(null);
        try {
            return waitFor(w);
        } finally {
            end(w);
        }
    }

    /**
     * Begins a wait that is more than one attempt: takes a wait id, counts the wait in flight and
     * joins the name's room, where a wake-up signals the waiting thread, or runs {@code onSignal}
     * (an {@link AsyncWait}'s, which must not block: it runs on the thread that delivers the wake-up).
     * {@link #end} ends it.
     */
    WaitQueues.Waiter join(@Nullable Runnable onSignal) {
        waitId = services.inFlight().began();
        try {
            return services.rooms().join(name, owner, waitId, !options.claim().exclusive(), onSignal);
        } catch (RuntimeException | Error e) {
            services.inFlight().ended();
            throw e;
        }
    }

    /** A wait of zero: one attempt, no room, no wait id; the grant or null. */
    @Nullable
    Grant tryOnce() {
        sent = now();
        Acquisition a = services.calls().attempt(name, owner, options.lease(), Duration.ZERO, 0, options.claim());
        Grant g = won(a);
        if (g == null) {
            services.events().notAcquired(name, options.claim(), start, Outcome.BUSY);
            return null;
        }
        return services.holds().granted(name, owner, g);
    }

    private @Nullable Grant waitFor(WaitQueues.Waiter w) throws InterruptedException {
        Grant won = begin(w);
        while (won == null) {
            long pause = pause(w);
            if (pause < 0) {
                return timedOut(); // abandon (in end) gives back a grant that raced the deadline
            }
            if (pause > 0) {
                w.await(pause);
            }
            checkCancelled(w);
            if (Thread.interrupted()) {
                if (interruptible) {
                    throw services.events().interrupted(name, options.claim(), start);
                }
                interrupted = true;
            }
            won = retry(w);
            if (won == null && expired) {
                return timedOut();
            }
        }
        return won;
    }

    // ---- the steps, shared by the blocking wait above and AsyncWait ----

    /**
     * The first attempt, and after a busy answer the subscription and one more attempt; the grant,
     * or null when the lock is busy (the wait then {@linkplain #pause pauses}).
     */
    @Nullable
    Grant begin(WaitQueues.Waiter w) {
        boolean heard = services.rooms().subscribed(w);
        busy = subscribeAndRetry(w, attempt(now()), heard);
        Grant won = won(busy);
        if (won != null) {
            return took(won);
        }
        waiting = services.events().waitStarted(name);
        return null;
    }

    /**
     * How long to wait for a wake-up before trying again: until the latest busy answer's retry hint
     * (at least {@link #MIN_RETRY_NANOS}) or the deadline; 0 when a direct grant is there already,
     * negative when the deadline has passed.
     */
    long pause(WaitQueues.Waiter w) {
        if (w.grant() != null) {
            return 0;
        }
        long left = options.waitsForever() ? Long.MAX_VALUE : deadline - now();
        if (left <= 0) {
            return -1;
        }
        return Math.min(left, Math.max(MIN_RETRY_NANOS, busy.retryAfter().toNanos()));
    }

    /**
     * @throws LockException when close cancelled the wait
     */
    void checkCancelled(WaitQueues.Waiter w) {
        if (w.cancelled() || services.gate().isClosed()) {
            throw new LockException(name, "the lock factory was closed while waiting");
        }
    }

    /**
     * After a wake-up or a pause: takes a direct grant, or attempts once more (at the deadline, a
     * last look); the grant, or null when the lock is still busy ({@link #expired()} when the
     * deadline has passed too).
     */
    @Nullable
    Grant retry(WaitQueues.Waiter w) {
        Grant direct = directGrant(w);
        if (direct != null) {
            return direct;
        }
        w.consumeSignal();
        long now = now();
        if (!options.waitsForever() && deadline - now <= 0) {
            Grant won = won(lastLook(now));
            if (won == null) {
                expired = true;
                return null;
            }
            return took(won);
        }
        busy = attempt(now);
        Grant won = won(busy);
        return won == null ? null : took(won);
    }

    private long now() {
        return services.ticker().nanoTime();
    }

    /** Whether the last look at the deadline found the lock busy. */
    boolean expired() {
        return expired;
    }

    private Grant took(Grant won) {
        acquired = true;
        return services.holds().granted(name, owner, won);
    }

    /** The hold {@code a} won, unless it is lost already (see "Lost already?"); null when busy or lost. */
    private @Nullable Grant won(Acquisition a) {
        return a.isAcquired() ? unlessLost(a.fencingToken(), sent, 0) : null;
    }

    /**
     * The hold won with {@code token} by a request sent at {@code sentNanos}, as it may be handed
     * out; null when the backend no longer has it, or no renewal came back within its lease before
     * the deadline (then a thread's next lock call releases what may be left). {@code leaseNanos}:
     * for a heard grant the lease it was announced with, running from {@code sentNanos}, else 0; a
     * lease shorter than the one asked for is handed out to a watchdog hold only (see "Direct grant").
     */
    private @Nullable Grant unlessLost(long token, long sentNanos, long leaseNanos) {
        long lease = options.lease().toNanos();
        boolean shorter = leaseNanos > 0 && leaseNanos < lease;
        if (heldToken != 0 && token == heldToken) {
            return new Grant(token, sentNanos);
        }
        if (leaseNanos == 0 && now() - sentNanos < lease) {
            return new Grant(token, sentNanos);
        }
        if (leaseNanos > 0 && (options.watchdog() || !shorter) && now() - sentNanos < Math.min(leaseNanos, lease) / 2) {
            // A heard grant with more than half of its lease left: the watchdog renews it in time.
            return shorter ? new Grant(token, sentNanos, leaseNanos, false) : new Grant(token, sentNanos);
        }
        while (true) {
            long renewal = now();
            if (!services.holds().confirm(name, owner, options.lease())) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "lock ''{0}'' (token {1}) was won after its lease had run out, and the backend no longer"
                                + " has it; trying again",
                        name,
                        token);
                return null;
            }
            long now = now();
            if (now - renewal < lease) {
                return new Grant(token, renewal);
            }
            if (!options.waitsForever() && deadline - now <= 0) {
                services.holds().unsettle(name, owner);
                return null;
            }
        }
    }

    /** An attempt sent at {@code now} that may queue this wait for the rest of its time. */
    private Acquisition attempt(long now) {
        sent = now;
        Duration left =
                options.waitsForever() ? LockOptions.MAX_DURATION : Duration.ofNanos(Math.max(1, deadline - now));
        return services.calls().attempt(name, owner, options.lease(), left, waitId, options.claim());
    }

    /**
     * After a busy first answer: unless the room was subscribed before that attempt went out ({@code
     * heard}: a release after it reaches this waiter), subscribe it and attempt once more. Every
     * waiter whose first attempt preceded the subscription tries again, not only the one that made
     * it: a release in between reached nobody, and the one that made it may be kept out by this one
     * (a writer queued ahead of readers, an earlier fair waiter) and wait again.
     */
    private Acquisition subscribeAndRetry(WaitQueues.Waiter w, Acquisition first, boolean heard) {
        if (first.isAcquired() || heard) {
            return first;
        }
        services.rooms().subscribe(w);
        return attempt(now());
    }

    /** The lock a release granted to this wait outright (see "Direct grant"), taken; or null. */
    private @Nullable Grant directGrant(WaitQueues.Waiter w) {
        Grant direct = w.takeGrant();
        if (direct == null) {
            return null;
        }
        long from = direct.heard() ? sent : direct.sentNanos();
        long heardLease =
                direct.leaseNanos() > 0 ? direct.leaseNanos() : options.lease().toNanos();
        Grant g = unlessLost(direct.token(), from, direct.heard() ? heardLease : 0);
        return g == null ? null : took(g);
    }

    /** At the deadline: one attempt that does not wait, so a lock freed exactly then is not missed. */
    private Acquisition lastLook(long now) {
        sent = now;
        return services.calls().attempt(name, owner, options.lease(), Duration.ZERO, waitId, options.claim());
    }

    @Nullable
    Grant timedOut() {
        services.events().notAcquired(name, options.claim(), start, Outcome.TIMED_OUT);
        return null;
    }

    /** Leaves the room, abandons the wait unless it took the lock, and restores a kept interrupt. */
    void end(WaitQueues.Waiter w) {
        services.rooms().leave(w, acquired);
        if (!acquired) {
            abandon();
        }
        services.inFlight().ended();
        if (waiting) {
            services.events().waitEnded(name);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Leaves the backend's queue, also while the factory is closing, so no entry of ours is left
     * to be handed the lock after we are gone, and a lock granted to this wait outright that it
     * did not take goes back.
     */
    private void abandon() {
        services.abandons().abandon(name, owner, waitId);
    }
}
