package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import io.lockkit.spi.support.WakeUpListeners;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers whose fault is in a backend's wait queue: who is queued, who is handed a
 * released lock, who is told. Each passed the whole kit before the kit test that rejects it was
 * written; {@link BrokenProvidersTest} names that test. They share {@link QueueingKit}, a queue
 * over {@link BrokenProvidersTest.BrokenKit}'s in-JVM table.
 */
final class BrokenQueueKits {

    private BrokenQueueKits() {}

    /**
     * One wait queue per name for the waiting owners of every client, as a backend keeps it; a
     * release hands the lock to the oldest waiter of another client, to claim within two seconds,
     * and tells every client who the grantee is (waiters of the releasing client are woken by their
     * own process); a lock freed with nobody of another client queued is announced free, or, when
     * {@link #announcesFreeLocks()} says not (as the Redis provider, which publishes hand-overs
     * only), not at all. Abandon leaves the queue and gives back a hand-over not yet claimed; a force
     * release drops a pending hand-over too. Subclasses break one of these.
     */
    abstract static class QueueingKit extends BrokenProvidersTest.BrokenKit {
        private static final Duration CLAIM = Duration.ofSeconds(2);

        record Claim(String owner, long token) {}

        final Map<String, Deque<String>> queues = new ConcurrentHashMap<>();
        final Map<String, Claim> claims = new ConcurrentHashMap<>();
        private final WakeUpListeners listeners = new WakeUpListeners();

        /** Whether a release that hands the lock to nobody tells the clients it is free. */
        boolean announcesFreeLocks() {
            return true;
        }

        final void tell(String name, @Nullable String grantee) {
            listeners.released(name, grantee);
        }

        final void dequeue(String name, String owner) {
            queues.computeIfPresent(name, (n, q) -> {
                q.remove(owner);
                return q.isEmpty() ? null : q;
            });
        }

        private @Nullable String nextOfAnotherClient(String name, String releaser) {
            String[] next = {null};
            queues.computeIfPresent(name, (n, q) -> {
                for (String owner : q) {
                    if (!BrokenHoldKits.clientOf(owner).equals(BrokenHoldKits.clientOf(releaser))) {
                        next[0] = owner;
                        q.remove(owner);
                        break;
                    }
                }
                return q.isEmpty() ? null : q;
            });
            return next[0];
        }

        /** The lock was freed by {@code releaser}: handed to the next waiter of another client, or free. */
        final @Nullable String passOn(LockProvider honest, String name, String releaser) {
            String next = nextOfAnotherClient(name, releaser);
            if (next != null) {
                Acquisition a = honest.tryAcquire(new LockRequest(name, next, CLAIM, Duration.ZERO));
                if (a.isAcquired()) {
                    claims.put(name, new Claim(next, a.fencingToken()));
                    tell(name, next);
                    return next;
                }
            }
            if (announcesFreeLocks()) {
                tell(name, null);
            }
            return null;
        }

        /** The owner's wait ended without the lock. */
        void abandoned(LockProvider honest, String name, String owner) {
            dequeue(name, owner);
            giveBack(honest, name, owner);
        }

        /** Passes on a hand-over made to {@code owner} that it did not claim. */
        final void giveBack(LockProvider honest, String name, String owner) {
            Claim claim = claims.get(name);
            if (claim != null && claim.owner.equals(owner) && claims.remove(name, claim)) {
                honest.release(name, owner);
                passOn(honest, name, owner);
            }
        }

        /** A force release of {@code name}. */
        boolean forced(LockProvider honest, String name) {
            claims.remove(name);
            boolean held = honest.forceRelease(name);
            tell(name, null);
            return held;
        }

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Claim claim = claims.get(r.name());
                    if (claim != null
                            && claim.owner.equals(r.owner())
                            && claims.remove(r.name(), claim)
                            && delegate()
                                    .renew(List.of(new Renewal(r.name(), r.owner(), r.lease())))
                                    .isEmpty()) {
                        dequeue(r.name(), r.owner());
                        return Acquisition.acquired(claim.token);
                    }
                    Acquisition a = delegate().tryAcquire(r);
                    if (a.isAcquired()) {
                        claims.computeIfPresent(r.name(), (n, c) -> c.owner.equals(r.owner()) ? c : null);
                        dequeue(r.name(), r.owner());
                    } else if (r.waiting()) {
                        queues.compute(r.name(), (n, q) -> {
                            Deque<String> queue = q == null ? new ArrayDeque<>() : q;
                            if (!queue.contains(r.owner())) {
                                queue.add(r.owner());
                            }
                            return queue;
                        });
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() != Release.Outcome.RELEASED) {
                        return r;
                    }
                    String next = passOn(delegate(), name, owner);
                    return next == null ? r : new Release(Release.Outcome.RELEASED, next);
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    abandoned(delegate(), name, owner);
                }

                @Override
                public boolean forceRelease(String name) {
                    return forced(delegate(), name);
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    // The honest table's subscription only for its closed check: wake-ups come from tell().
                    super.subscribe(name, new WakeUpListener() {
                                @Override
                                public void released(@Nullable String grantee) {}

                                @Override
                                public void missedNotifications() {}
                            })
                            .close();
                    listeners.add(name, listener);
                    return () -> listeners.remove(name, listener);
                }
            };
        }
    }

    /**
     * Abandon does nothing: a waiter of another client that gave up stays queued, is handed the
     * lock, and keeps it from everyone until the claim times out.
     */
    static class KeepsAbandonedQueueEntryKit extends QueueingKit {
        @Override
        void abandoned(LockProvider honest, String name, String owner) {
            // the fault: the queue entry and a hand-over not yet claimed stay
        }
    }

    /**
     * A force release frees held locks only (a {@code DELETE ... WHERE hold_count > 0}): a lock
     * handed to a waiter that has not claimed it stays with that waiter until the claim times out.
     */
    static class ForceReleaseSparesHandOversKit extends QueueingKit {
        @Override
        boolean forced(LockProvider honest, String name) {
            return claims.containsKey(name) ? false : super.forced(honest, name);
        }
    }

    /**
     * The queue as the Redis provider keeps it: a release tells the clients only of a hand-over to
     * a queued waiter (every waiting owner is queued), never that the lock is free. Honest: the
     * counterpart of {@link AbandonDropsTheQueueKit}.
     */
    static class QuietQueueingKit extends QueueingKit {
        @Override
        boolean announcesFreeLocks() {
            return false;
        }
    }

    /**
     * Abandon deletes the name's whole wait queue instead of the owner's entry (a {@code DEL} of the
     * queue key instead of a {@code ZREM} of the member): every other waiter loses its place, the
     * next release finds nobody to hand the lock to and tells nobody, and the waiters of other
     * clients take the lock only at their retry hints.
     */
    static class AbandonDropsTheQueueKit extends QuietQueueingKit {
        @Override
        void abandoned(LockProvider honest, String name, String owner) {
            queues.remove(name); // the fault: the whole queue, not the owner's entry
            giveBack(honest, name, owner);
        }
    }
}
