package io.lockkit;

import io.lockkit.LockObserver.LossCause;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one {@link ProviderLockFactory} once taken: registers them with the
 * {@link LeaseWatchdog}, releases, extends and takes them again, reports their losses, and
 * releases what is left when the factory closes. Called on the holders' threads, the watchdog's
 * (scheduler) threads and the closing thread; owns no thread or executor. Thread-safe.
 *
 * <p>Design: a hold is live from its registration until it is released or lost; {@link Hold}
 * guards each state change, so a release and a loss that race report one outcome. Every release
 * that may free a lock passes on what it handed over (a direct grant or a wake-up) to this client's
 * waiters, whatever became of the releasing hold, and a release whose answer never came makes them
 * look again.
 */
final class Holds {

    // The factory's logger, as before these methods moved here: the same log category.
    private static final System.Logger LOG = System.getLogger(ProviderLockFactory.class.getName());
    /**
     * Releases sent at most to free what the backend holds for an owner: a request retried after
     * its answer was lost can leave the backend a count or more ahead of this client.
     */
    private static final int MAX_RELEASES = 64;

    private final ProviderCalls calls;
    private final LockProvider provider;
    private final Ticker ticker;
    private final Gate gate;
    private final LiveHolds live;
    private final Unsettled unsettled;
    private final Events events;
    private final WaitQueues waits;
    private final Consumer<LockLostException> lossListener;
    private final LeaseWatchdog watchdog;

    /**
     * @param scheduler the watchdog's (renewals and loss deadlines run there)
     */
    Holds(
            ProviderCalls calls,
            Ticker ticker,
            Gate gate,
            LiveHolds live,
            Unsettled unsettled,
            Events events,
            WaitQueues waits,
            Consumer<LockLostException> lossListener,
            ScheduledExecutorService scheduler) {
        this.calls = calls;
        this.provider = calls.provider();
        this.ticker = ticker;
        this.gate = gate;
        this.live = live;
        this.unsettled = unsettled;
        this.events = events;
        this.waits = waits;
        this.lossListener = lossListener;
        this.watchdog = new LeaseWatchdog(provider, ticker, scheduler, this::lostByWatchdog, events);
    }

    /** The provider these holds are released through (a multi-lock's {@link BatchReleases}). */
    LockProvider provider() {
        return provider;
    }

    /** The watchdog that renews these holds and reports them lost at their deadlines. */
    LeaseWatchdog watchdog() {
        return watchdog;
    }

    /**
     * The grant of a hold just won, unless the factory closed meanwhile (then the hold is given back).
     *
     * @throws LockException when the factory closed while acquiring
     */
    Grant granted(String name, String owner, Grant g) {
        if (gate.refuses(name, owner)) {
            releaseQuietly(name, owner);
            throw new LockException(name, "the lock factory was closed while acquiring");
        }
        return g;
    }

    Hold register(String name, String owner, Grant g, ResolvedOptions options) {
        Hold h = new Hold(
                name,
                owner,
                g.token(),
                options.lease(),
                options.watchdog(),
                options.renewalInterval(),
                g.sentNanos(),
                g.leaseNanos(),
                options.claim());
        live.add(h);
        watchdog.watch(h);
        if (gate.isClosed() && h.markReleased(true)) {
            live.remove(h);
            releaseQuietly(h.name, h.owner);
            throw new LockException(name, "the lock factory was closed while acquiring");
        }
        return h;
    }

    /**
     * Releases one hold count of {@code h}; {@code whenEmpty} runs once the hold has no count left
     * on this client.
     */
    void releaseOnce(Hold h, Runnable whenEmpty) {
        switch (h.state()) {
            case RELEASED -> {
                if (h.releasedByClose()) {
                    whenEmpty.run();
                    throw new LockLostException(h.name, h.token, "released when the lock factory closed");
                }
                throw h.alreadyReleased("this owner");
            }
            case LOST -> {
                if (h.decrement() <= 0) {
                    whenEmpty.run();
                }
                releaseQuietly(h.name, h.owner);
                throw h.lossToThrow();
            }
            case HELD -> releaseHeld(h, whenEmpty);
        }
    }

    private void releaseHeld(Hold h, Runnable whenEmpty) {
        boolean last = h.count() <= 1;
        long sent = ticker.nanoTime();
        Release r;
        try {
            r = provider.release(h.name, h.owner);
        } catch (RuntimeException e) {
            releaseFailed(h, last, whenEmpty, e);
            throw e;
        }
        settle(h, r, last, sent, whenEmpty);
    }

    /**
     * A release of {@code h} whose answer never came: the hold ends here if it was the last count
     * (the backend lets its lease lapse), and the name's waiters look again.
     */
    void releaseFailed(Hold h, boolean last, Runnable whenEmpty, RuntimeException e) {
        events.failed(h.name, e);
        if (last) {
            unsettle(h.name, h.owner);
        }
        if (last && h.markReleased(false)) {
            // Stop renewing: the backend lets the lease lapse even though we could not tell it.
            live.remove(h);
            watchdog.unwatch(h);
            events.released(h);
            whenEmpty.run();
        } else if (!last) {
            h.decrement();
        }
        releaseUnanswered(h.name);
    }

    /** What the release of {@code h} sent at {@code sent} answered: the hold released, still held or lost. */
    void settle(Hold h, Release answer, boolean last, long sent, Runnable whenEmpty) {
        Release r = answer;
        if (last) {
            // A retried reentrant request may have left the backend one count ahead of us.
            try {
                for (int i = 0; i < MAX_RELEASES && r.outcome() == Release.Outcome.STILL_HELD; i++) {
                    r = provider.release(h.name, h.owner);
                }
            } catch (RuntimeException e) {
                releaseFailed(h, true, whenEmpty, e);
                throw e;
            }
        }
        switch (r.outcome()) {
            case RELEASED -> {
                if (h.markReleased(false)) {
                    live.remove(h);
                    watchdog.unwatch(h);
                    events.released(h);
                }
                whenEmpty.run();
                passOn(h.name, r, sent);
            }
            case STILL_HELD -> {
                if (h.decrement() <= 0) {
                    whenEmpty.run();
                }
            }
            case NOT_HELD -> {
                lost(h, LossCause.NOT_HELD, "the lease had lapsed on the backend before the release");
                if (h.decrement() <= 0) {
                    whenEmpty.run();
                }
                throw h.lossToThrow();
            }
        }
    }

    /** Takes the hold once more for the same owner (a handle's reentrant acquisition). */
    void reacquire(Hold h) {
        h.requireHeld("this handle");
        gate.ensureOpen(h.name, h.owner);
        long start = ticker.nanoTime();
        Acquisition a = calls.attempt(h.name, h.owner, h.lease(), Duration.ZERO, 0, h.claim);
        if (!a.isAcquired() || a.fencingToken() != h.token) {
            if (a.isAcquired()) {
                releaseQuietly(h.name, h.owner);
            }
            lost(h, LossCause.NOT_HELD, "the backend no longer had this hold when it was acquired again");
            throw h.lossToThrow();
        }
        h.increment();
        events.acquired(h.name, h.claim, start, h.token, true);
    }

    /**
     * Leaves {@code h} to lapse on the backend {@code delay} from now: its lease set to the delay,
     * not renewed, and the hold forgotten here; with more than one count, or no delay, a release.
     */
    void releaseAfter(Hold h, Duration delay, Runnable whenEmpty) {
        if (delay.isZero() || h.state() != Hold.State.HELD || h.count() > 1) {
            releaseOnce(h, whenEmpty);
            return;
        }
        extend(h, delay); // ends the watchdog's renewals; throws when the hold is gone
        if (h.markReleased(false)) {
            live.remove(h);
            watchdog.unwatch(h);
            events.released(h);
            whenEmpty.run();
        }
    }

    /** Sets a hold's lease to {@code lease} from now. */
    void extend(Hold h, Duration lease) {
        calls.require(Capability.EXPLICIT_LEASE, "extending a lease");
        h.requireHeld("this owner");
        long sent = ticker.nanoTime();
        if (!h.isValid(sent)) {
            lost(h, LossCause.LEASE_EXPIRED, "the lease ran out before it was extended");
            throw h.lossToThrow();
        }
        Renewal renewal = new Renewal(h.name, h.owner, lease);
        List<Renewal> gone;
        try {
            gone = provider.renew(List.of(renewal));
        } catch (RuntimeException e) {
            events.failed(h.name, e);
            throw e;
        }
        if (!gone.isEmpty()) {
            lost(h, LossCause.NOT_HELD, "the backend no longer had this hold when it was extended");
            throw h.lossToThrow();
        }
        h.extended(lease, sent);
        watchdog.rescheduled(h);
    }

    /** A loss the watchdog found: past the client-side deadline, or a renewal found the hold gone. */
    private void lostByWatchdog(Hold h, String reason) {
        lost(h, h.deadlineNanos() - ticker.nanoTime() <= 0 ? LossCause.LEASE_EXPIRED : LossCause.NOT_HELD, reason);
    }

    /** Reports a hold as lost, once. */
    void lost(Hold h, LossCause cause, String reason) {
        LockLostException loss = h.markLost(reason);
        if (loss == null) {
            return;
        }
        if (cause == LossCause.LEASE_EXPIRED) {
            unsettle(h.name, h.owner); // the backend's lease may run a little longer than ours
        }
        live.remove(h);
        watchdog.unwatch(h);
        LOG.log(System.Logger.Level.WARNING, loss.getMessage());
        events.lost(h, cause, loss);
        try {
            lossListener.accept(loss);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a lock loss listener failed", e);
        }
        h.lossCause = cause;
        h.lost.complete(loss);
    }

    /**
     * Releases a hold this client no longer counts on (lost, or released by close or a closed
     * factory), every count the backend may have for the owner, passing on whatever the release
     * handed over: the backend may still have had the hold, and a release that frees it can grant
     * the lock to a waiter of this client.
     */
    void releaseQuietly(String name, String owner) {
        try {
            releaseUpTo(name, owner, MAX_RELEASES);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "releasing lock '" + name + "' failed; its lease will lapse", e);
            unsettle(name, owner);
            releaseUnanswered(name);
        }
    }

    /** Releases until the backend has no count left for the owner, at most {@code times} times. */
    private void releaseUpTo(String name, String owner, int times) {
        for (int i = 0; i < times; i++) {
            long sent = ticker.nanoTime();
            Release r = provider.release(name, owner);
            if (r.outcome() != Release.Outcome.STILL_HELD) {
                passOn(name, r, sent);
                return;
            }
        }
    }

    /**
     * Renews a hold a wait won after its lease ran out, before the wait hands it out: whether the
     * backend still has it (its lease now runs {@code lease} from this call).
     *
     * @throws RuntimeException the renewal's failure; the owner is noted as unsettled, as after
     *     any failed acquisition
     */
    boolean confirm(String name, String owner, Duration lease) {
        try {
            return provider.renew(List.of(new Renewal(name, owner, lease))).isEmpty();
        } catch (RuntimeException e) {
            unsettle(name, owner);
            events.failed(name, e);
            throw e;
        }
    }

    /** Notes that the backend may still hold {@code name} for {@code owner}, if a thread of this client. */
    void unsettle(String name, String owner) {
        unsettled.unsettle(name, owner);
    }

    /**
     * Before a thread locks {@code key}'s name anew (holding it no more): frees what the backend may
     * still hold for it from a hold that ended here without the backend's word. If that fails, so
     * does the lock call, and the next one tries again.
     */
    void settle(HoldKey key) {
        if (!unsettled.take(key)) {
            return;
        }
        try {
            releaseUpTo(key.name(), key.owner(), MAX_RELEASES);
        } catch (RuntimeException e) {
            unsettled.putBack(key);
            events.failed(key.name(), e);
            throw e;
        }
    }

    /**
     * Tells the grantee of a release sent at {@code sent} that it holds the lock (a direct grant:
     * its lease was set by the release, so it runs from no earlier than {@code sent}), or wakes it
     * to claim a hand-over. Every release that may free a lock ends here, whatever became of the
     * releasing hold.
     */
    private void passOn(String name, @Nullable Release r, long sent) {
        if (r == null || r.grantee() == null) {
            return;
        }
        String grantee = r.grantee();
        if (r.granted()) {
            waits.grantedTo(name, grantee, r.grantWaitId(), r.grantToken(), sent);
        } else {
            waits.handedTo(name, grantee);
        }
    }

    /**
     * A release whose answer never came may still have run and granted the lock to a waiter of
     * this client that nobody will tell: the waiters of that name look again now rather than at
     * their retry hint (an attempt of the granted wait takes the grant, with a lease set anew).
     */
    private void releaseUnanswered(String name) {
        waits.recheck(name);
    }

    /** See {@link LiveHolds#drain}. */
    void drain(Duration drainTime) {
        live.drain(drainTime);
    }

    /** Tells the holder of a hold that close released that its lock is gone. */
    private void reportClosed(Hold h, Duration drainTime) {
        LockLostException loss = new LockLostException(
                h.name,
                h.token,
                "released when the lock factory closed"
                        + (drainTime.isZero() ? "" : " after waiting " + drainTime + " for its holder"));
        LOG.log(System.Logger.Level.WARNING, loss.getMessage());
        events.lost(h, LossCause.FACTORY_CLOSED, loss);
        try {
            lossListener.accept(loss);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a lock loss listener failed", e);
        }
        h.lossCause = LossCause.FACTORY_CLOSED;
        h.lost.complete(loss);
    }

    /** Releases every live hold for close, once: its full count, then tells its holder. */
    void releaseOnClose(Duration drainTime) {
        for (Hold h : live.snapshot()) {
            if (h.markReleased(true)) {
                live.remove(h);
                try {
                    releaseQuietly(h.name, h.owner);
                    reportClosed(h, drainTime);
                } catch (RuntimeException | LinkageError e) {
                    // One hold must not keep the others (and the threads after them) from closing.
                    LOG.log(System.Logger.Level.WARNING, "lockkit: closing hold of lock '" + h.name + "' failed", e);
                    h.lost.complete(new LockLostException(h.name, h.token, "released when the lock factory closed"));
                }
            }
        }
    }

    /** The lock {@code name} was force-released: every live hold of it is lost. */
    void forceReleased(String name) {
        for (Hold h : live.of(name)) {
            lost(h, LossCause.FORCE_RELEASED, "the lock was force-released");
        }
    }

    /** How many holds are live (held, not yet released or lost). */
    int liveCount() {
        return live.count();
    }
}
