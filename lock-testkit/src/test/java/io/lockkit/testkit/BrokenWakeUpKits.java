package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers whose fault is in how a backend tells waiters when to try again: retry hints,
 * wake-ups, subscriptions, its wait queue. Each passed the whole kit before the kit test that
 * rejects it was written; {@link BrokenProvidersTest} names that test.
 */
final class BrokenWakeUpKits {

    private BrokenWakeUpKits() {}

    /** Busy answers say "retry now" (a zero retry hint): a waiter that no release wakes polls the backend. */
    static class ZeroRetryHintKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    return a.isAcquired() ? a : Acquisition.busy(Duration.ZERO);
                }
            };
        }
    }

    /** Every release notification is passed on as "notifications may have been missed", which wakes every waiter of a client (a herd). */
    static class WakesEveryWaiterKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            listener.missedNotifications();
                        }

                        @Override
                        public void missedNotifications() {
                            listener.missedNotifications();
                        }
                    });
                }
            };
        }
    }

    /** Closing a subscription does nothing: its listener keeps hearing of releases (and the backend keeps the channel). */
    static class SubscriptionOutlivesCloseKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    Subscription unused = delegate().subscribe(name, listener);
                    return () -> {
                        // the fault: the subscription made above is never closed
                    };
                }
            };
        }
    }

    /**
     * A force release frees the lock without a wake-up (a DELETE that forgets the notification):
     * waiters of other clients find out at their retry hint.
     */
    static class ForceReleaseWakesNobodyKit extends BrokenProvidersTest.BrokenKit {
        private final ThreadLocal<Boolean> forcing = ThreadLocal.withInitial(() -> false);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public boolean forceRelease(String name) {
                    forcing.set(true);
                    try {
                        return delegate().forceRelease(name);
                    } finally {
                        forcing.set(false);
                    }
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            if (!forcing.get()) {
                                listener.released(grantee);
                            }
                        }

                        @Override
                        public void missedNotifications() {
                            listener.missedNotifications();
                        }
                    });
                }
            };
        }
    }

    /**
     * One wait queue per name for the waiting owners of every client, as a backend keeps it; a
     * release hands the lock to the oldest waiter of another client, to claim within two seconds,
     * and tells every client who the grantee is (waiters of the releasing client are woken by their
     * own process). Abandon leaves the queue and gives back a hand-over not yet claimed; a force
     * release drops a pending hand-over too. Subclasses break one of these.
     */
    abstract static class QueueingKit extends BrokenProvidersTest.BrokenKit {
        private static final Duration CLAIM = Duration.ofSeconds(2);

        record Claim(String owner, long token) {}

        private final Map<String, Deque<String>> queues = new ConcurrentHashMap<>();
        final Map<String, Claim> claims = new ConcurrentHashMap<>();
        private final Map<String, List<WakeUpListener>> listeners = new ConcurrentHashMap<>();

        final void tell(String name, @Nullable String grantee) {
            for (WakeUpListener l : listeners.getOrDefault(name, List.of())) {
                l.released(grantee);
            }
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

        /** The lock was freed by {@code releaser}: handed to the next waiter of another client, or announced free. */
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
            tell(name, null);
            return null;
        }

        /** The owner's wait ended without the lock. */
        void abandoned(LockProvider honest, String name, String owner) {
            dequeue(name, owner);
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
                        queues.computeIfAbsent(r.name(), n -> new ArrayDeque<>());
                        queues.computeIfPresent(r.name(), (n, q) -> {
                            if (!q.contains(r.owner())) {
                                q.add(r.owner());
                            }
                            return q;
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
                    listeners
                            .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                            .add(listener);
                    return () -> listeners.computeIfPresent(name, (n, list) -> {
                        list.remove(listener);
                        return list.isEmpty() ? null : list;
                    });
                }
            };
        }
    }

    /**
     * Abandon does nothing: a waiter of another client that gave up stays queued, is handed the
     * lock, and keeps it from everyone until the claim times out.
     */
    static class IgnoresAbandonKit extends QueueingKit {
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
     * Subscribe returns before the subscription takes effect (a SUBSCRIBE sent without waiting for
     * its confirmation), with no "notifications may have been missed" after: a release in the first
     * 100 ms is lost. Everything else about the subscription (its close, a closed provider's
     * refusal) is as the honest provider's.
     */
    static class LateSubscriptionKit extends BrokenProvidersTest.BrokenKit {
        private static final long DEAF_NANOS = Duration.ofMillis(100).toNanos();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    long subscribed = System.nanoTime();
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            if (System.nanoTime() - subscribed >= DEAF_NANOS) {
                                listener.released(grantee);
                            }
                        }

                        @Override
                        public void missedNotifications() {
                            if (System.nanoTime() - subscribed >= DEAF_NANOS) {
                                listener.missedNotifications();
                            }
                        }
                    });
                }
            };
        }
    }

    /**
     * Pipelines its unsubscriptions, as a pub/sub connection that sends a command with the next one:
     * the last close of a name queues its UNSUBSCRIBE, and the reply to it, read when the next
     * subscribe goes out, forgets the name's listeners. A listener subscribed to the name right
     * after its last close is forgotten with them (and the backend no longer subscribed), so its
     * waiter hears of no release.
     */
    static class DropsListenersOnUnsubscribedKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private final Map<String, List<WakeUpListener>> listeners = new ConcurrentHashMap<>();
                /** The backend subscriptions, one per name with listeners. */
                private final Map<String, Subscription> channels = new ConcurrentHashMap<>();
                /** Names whose unsubscription is queued, sent with the next subscribe. */
                private final Queue<String> unsubscribing = new ConcurrentLinkedQueue<>();

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    listeners
                            .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                            .add(listener);
                    channels.computeIfAbsent(
                            name,
                            n -> delegate().subscribe(n, new WakeUpListener() {
                                @Override
                                public void released(@Nullable String grantee) {
                                    listeners.getOrDefault(n, List.of()).forEach(l -> l.released(grantee));
                                }

                                @Override
                                public void missedNotifications() {
                                    listeners.getOrDefault(n, List.of()).forEach(WakeUpListener::missedNotifications);
                                }
                            }));
                    unsubscribed();
                    return () -> {
                        List<WakeUpListener> list = listeners.get(name);
                        if (list != null && list.remove(listener) && list.isEmpty()) {
                            unsubscribing.add(name);
                        }
                    };
                }

                /** The replies to the queued unsubscriptions. */
                private void unsubscribed() {
                    for (String name = unsubscribing.poll(); name != null; name = unsubscribing.poll()) {
                        Subscription channel = channels.remove(name);
                        if (channel != null) {
                            channel.close();
                        }
                        listeners.remove(name); // the fault: also whoever subscribed since the last close
                    }
                }

                @Override
                public void close() {
                    unsubscribed();
                    super.close();
                }
            };
        }
    }

    /**
     * A subscription hears the releases of every name that starts with its own (a pattern
     * subscription, {@code PSUBSCRIBE name*} or {@code LIKE name || '%'}): waiters of {@code order:1}
     * are woken by releases of {@code order:10} to {@code order:19}.
     */
    static class WakeUpsByPrefixKit extends BrokenProvidersTest.BrokenKit {
        /** Every subscription of every client, by the name it asked for. */
        private final Map<String, List<WakeUpListener>> subscribed = new ConcurrentHashMap<>();

        private void released(String name) {
            subscribed.forEach((subscribedTo, listeners) -> {
                if (!subscribedTo.equals(name) && name.startsWith(subscribedTo)) {
                    listeners.forEach(l -> l.released(null));
                }
            });
        }

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() == Release.Outcome.RELEASED) {
                        released(name);
                    }
                    return r;
                }

                @Override
                public boolean forceRelease(String name) {
                    boolean held = delegate().forceRelease(name);
                    released(name);
                    return held;
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    Subscription s = delegate().subscribe(name, listener);
                    subscribed
                            .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                            .add(listener);
                    return () -> {
                        subscribed.computeIfPresent(name, (n, list) -> {
                            list.remove(listener);
                            return list.isEmpty() ? null : list;
                        });
                        s.close();
                    };
                }
            };
        }
    }
}
