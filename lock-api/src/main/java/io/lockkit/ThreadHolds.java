package io.lockkit;

import io.lockkit.LockObserver.LossCause;
import io.lockkit.spi.Claim;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one {@link ProviderLockFactory} whose owner is a thread ({@link ThreadOwnedLock}):
 * each thread's hold of each name, with its count, and the hold below it when a new one replaced
 * a lost one. Called on the owning thread only for its own keys (the watchdog's threads only mark
 * holds lost); owns no thread. Thread-safe (a concurrent map).
 *
 * <p>Reentrant acquisitions go to the provider too, so the backend's hold counts stay truthful for
 * operators.
 */
final class ThreadHolds {

    private final Owners owners;
    private final Acquirer acquirer;
    private final Holds holds;
    private final Events events;
    private final Ticker ticker;
    private final LockOptions defaults;
    private final ConcurrentHashMap<HoldKey, Hold> threadHolds = new ConcurrentHashMap<>();

    ThreadHolds(Owners owners, Acquirer acquirer, Holds holds, Events events, Ticker ticker, LockOptions defaults) {
        this.owners = owners;
        this.acquirer = acquirer;
        this.holds = holds;
        this.events = events;
        this.ticker = ticker;
        this.defaults = defaults;
    }

    /** The calling thread's hold of {@code name} on {@code side}, in whatever state; null when none. */
    @Nullable
    Hold currentThreadHold(String name, ThreadSide side) {
        return threadHolds.get(new HoldKey(name, side.owner(owners)));
    }

    /**
     * Locks {@code name} on {@code side} for the calling thread, again if it holds it.
     *
     * @return false when the wait ran out
     * @throws IllegalMonitorStateException when the thread holds only the read lock of {@code name}
     *         and asks for an exclusive side: an upgrade, refused before the backend is asked
     */
    boolean lockForThread(
            String name, ThreadSide side, @Nullable Duration lease, @Nullable Duration wait, boolean interruptible)
            throws InterruptedException {
        String owner = side.owner(owners);
        HoldKey key = new HoldKey(name, owner);
        ResolvedOptions o = ResolvedOptions.of(lease, wait, defaults, defaults).withClaim(claimFor(name, side));
        long start = ticker.nanoTime();
        Hold held = threadHolds.get(key);
        if (held == null || held.state() != Hold.State.HELD) {
            holds.settle(key);
        }
        Grant g = acquirer.take(
                name, owner, o, interruptible, start, held != null && held.state() == Hold.State.HELD ? held.token : 0);
        if (g == null) {
            return false;
        }
        Hold top = threadHolds.get(key);
        if (top != null && top.state() == Hold.State.HELD) {
            if (top.token == g.token()) {
                again(top, g, o, start);
                return true;
            }
            // The backend granted a new hold, so the one we knew of had ended there: report it.
            holds.lost(top, LossCause.NOT_HELD, "the backend no longer had this hold when the thread locked again");
        }
        Hold h = holds.register(name, owner, g, o);
        h.previous = top;
        threadHolds.put(key, h);
        events.acquired(name, o.claim(), start, g.token(), false);
        return true;
    }

    /**
     * What the calling thread's hold of {@code name} on {@code side} claims: a read beside the
     * thread's own write hold (a downgrade) stands beside it; a write while only reading is refused.
     */
    private Claim claimFor(String name, ThreadSide side) {
        if (side.exclusive()) {
            if (!heldBy(name, owners.threadOwner()) && heldBy(name, ThreadSide.READ.owner(owners))) {
                throw new IllegalMonitorStateException("the current thread holds the read lock of '"
                        + LockException.abbreviate(name) + "' and asks for its write lock: an upgrade, which"
                        + " would deadlock against another reader doing the same; unlock the read lock first");
            }
            return side.claim();
        }
        String writer = owners.threadOwner();
        return heldBy(name, writer) ? side.claim().beside(writer) : side.claim();
    }

    private boolean heldBy(String name, String owner) {
        Hold h = threadHolds.get(new HoldKey(name, owner));
        return h != null && h.state() == Hold.State.HELD;
    }

    /** A reentrant acquisition of {@code top}: one more count, and a longer explicit lease if asked for. */
    private void again(Hold top, Grant g, ResolvedOptions o, long start) {
        top.increment();
        if (!top.watchdog() && !o.watchdog() && g.sentNanos() + o.lease().toNanos() - top.deadlineNanos() > 0) {
            top.extended(o.lease(), g.sentNanos());
            holds.watchdog().rescheduled(top);
        }
        events.acquired(top.name, o.claim(), start, g.token(), true);
    }

    /**
     * Releases one count of the calling thread's hold of {@code name} on {@code side}.
     *
     * @throws IllegalMonitorStateException when the thread does not hold it
     */
    void unlockForThread(String name, ThreadSide side) {
        HoldKey key = new HoldKey(name, side.owner(owners));
        Hold top = threadHolds.get(key);
        if (top == null) {
            throw new IllegalMonitorStateException(
                    "the current thread does not hold lock '" + LockException.abbreviate(name) + "'");
        }
        holds.releaseOnce(top, () -> {
            if (top.previous == null) {
                threadHolds.remove(key, top);
            } else {
                threadHolds.replace(key, top, top.previous);
            }
        });
    }
}
