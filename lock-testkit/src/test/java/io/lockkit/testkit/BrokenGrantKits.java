package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Broken providers whose fault is in a direct grant ({@link Release#grantedTo}): the hold a release
 * makes for a waiter of the releasing client, which the core takes without a call. Each passed
 * the whole kit before the kit test that rejects it was written; {@link BrokenProvidersTest} names
 * that test. Each breaks {@link HandingOverProviderContractTest.HandingOver} over an in-JVM table.
 */
final class BrokenGrantKits {

    private BrokenGrantKits() {}

    /** A kit whose clients grant released locks to their waiters, each broken by {@link #grant}. */
    abstract static class GrantingKit extends LockContractTest {
        private final LocalLockProvider backend = new LocalLockProvider();

        @Override
        protected LockProvider newProvider() {
            return grant(backend.newClient());
        }

        abstract HandingOverProviderContractTest.HandingOver grant(LockProvider honest);
    }

    /** The grants as they should be: the honest counterpart of the kits below. */
    static class HonestGrantsKit extends GrantingKit {
        @Override
        HandingOverProviderContractTest.HandingOver grant(LockProvider honest) {
            return new HandingOverProviderContractTest.HandingOver(honest);
        }
    }

    /**
     * A direct grant holds the lock for the backend's claim time of a hand-over (2 s), not for the
     * lease of the waiter's request (one expiry for every kind of hand-over): a waiter that asked
     * for a longer lease holds the lock on its client after the backend has let it go.
     */
    static class GrantsForTheClaimTimeKit extends GrantingKit {
        @Override
        HandingOverProviderContractTest.HandingOver grant(LockProvider honest) {
            return new HandingOverProviderContractTest.HandingOver(honest) {
                @Override
                Duration grantLease(LockRequest next) {
                    return Duration.ofSeconds(2);
                }
            };
        }
    }

    /**
     * An attempt of the granted wait that meets its grant takes the lock again, reentrantly: the
     * hold count is 2 where the owner holds once, and its release leaves the lock held until the
     * lease runs out (for a watchdog hold, never).
     */
    static class GrantRetakenReentrantlyKit extends GrantingKit {
        @Override
        HandingOverProviderContractTest.HandingOver grant(LockProvider honest) {
            return new HandingOverProviderContractTest.HandingOver(honest) {
                @Override
                Acquisition takeGrant(LockRequest r, long token) {
                    return delegate().tryAcquire(r);
                }
            };
        }
    }

    /** A kit whose clients grant released locks to waiters of any client, each broken by {@link #hear}. */
    abstract static class HearingKit extends LockContractTest {
        private final LocalLockProvider backend = new LocalLockProvider();
        private final HearingGrantsProviderContractTest.Hearing.Shared shared =
                new HearingGrantsProviderContractTest.Hearing.Shared();

        @Override
        protected LockProvider newProvider() {
            return hear(backend.newClient(), shared);
        }

        abstract HearingGrantsProviderContractTest.Hearing hear(
                LockProvider honest, HearingGrantsProviderContractTest.Hearing.Shared shared);
    }

    /** The heard grants as they should be: the honest counterpart of the kit below. */
    static class HonestHeardGrantsKit extends HearingKit {
        @Override
        HearingGrantsProviderContractTest.Hearing hear(
                LockProvider honest, HearingGrantsProviderContractTest.Hearing.Shared shared) {
            return new HearingGrantsProviderContractTest.Hearing(honest, shared);
        }
    }

    /**
     * A grant to a waiter of another client holds the lock for half the lease the waiter asked
     * for, but is announced with the whole of it: the waiter's client counts a lease the backend
     * does not keep, and holds the lock on its client after the backend has let it go.
     */
    static class HeardGrantsOutlastTheirLeaseKit extends HearingKit {
        @Override
        HearingGrantsProviderContractTest.Hearing hear(
                LockProvider honest, HearingGrantsProviderContractTest.Hearing.Shared shared) {
            return new HearingGrantsProviderContractTest.Hearing(honest, shared) {
                @Override
                Duration grantLease(LockRequest next) {
                    return next.lease().dividedBy(2);
                }

                @Override
                Duration announcedLease(LockRequest next, Duration lease) {
                    return next.lease();
                }
            };
        }
    }

    /**
     * Grants a released lock outright to a waiter of the releasing client, with the lease of the
     * waiter's request counted from the release, as a backend that hands over within a process
     * does; but the release answers a plain RELEASED, and no wake-up goes out. The waiter finds the
     * grant at its next attempt, which answers "acquired" without setting the lease again, so its
     * client counts the lease from that attempt: later than the backend does.
     */
    static class DropsGrantsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                /** The latest waiting request per lock name, of this client. */
                private final Map<String, LockRequest> waiting = new ConcurrentHashMap<>();
                /** Grants made and not passed on: "name owner waitId" → token. */
                private final Map<String, Long> grants = new ConcurrentHashMap<>();

                private final AtomicBoolean granting = new AtomicBoolean();

                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Long granted = grants.remove(key(request.name(), request.owner(), request.waitId()));
                    if (granted != null) {
                        return Acquisition.acquired(granted);
                    }
                    Acquisition a = delegate().tryAcquire(request);
                    if (!a.isAcquired() && request.waiting() && request.waitId() != 0) {
                        waiting.put(request.name(), request);
                    } else {
                        waiting.remove(request.name(), request);
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    LockRequest next = waiting.get(name);
                    granting.set(true);
                    Release r;
                    try {
                        r = delegate().release(name, owner);
                    } finally {
                        granting.set(false);
                    }
                    if (r.outcome() == Release.Outcome.RELEASED && next != null && waiting.remove(name, next)) {
                        Acquisition a =
                                delegate().tryAcquire(new LockRequest(name, next.owner(), next.lease(), Duration.ZERO));
                        if (a.isAcquired()) {
                            grants.put(key(name, next.owner(), next.waitId()), a.fencingToken());
                        }
                    }
                    return r;
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    waiting.computeIfPresent(name, (n, r) -> r.owner().equals(owner) ? null : r);
                    if (grants.remove(key(name, owner, waitId)) != null) {
                        delegate().release(name, owner);
                    }
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    // The grant is made without a wake-up: the releasing process would wake its own waiter.
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(String grantee) {
                            if (!granting.get()) {
                                listener.released(grantee);
                            }
                        }

                        @Override
                        public void missedNotifications() {
                            listener.missedNotifications();
                        }
                    });
                }

                private static String key(String name, String owner, long waitId) {
                    return name + " " + owner + " " + waitId;
                }
            };
        }
    }

    /**
     * Queues the waiting owners of each client and hands a released lock to the latest of them
     * (passing the grant on, as it should), but ignores abandon: a waiter that gave up still gets
     * the lock, which then sits with nobody until its lease lapses.
     */
    static class GrantsToAbandonedWaiterKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private final Map<String, LockRequest> waiting = new ConcurrentHashMap<>();

                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    if (!a.isAcquired() && r.waiting() && r.waitId() != 0) {
                        waiting.put(r.name(), r);
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    LockRequest next = waiting.remove(name);
                    if (r.outcome() == Release.Outcome.RELEASED && next != null) {
                        Acquisition a =
                                delegate().tryAcquire(new LockRequest(name, next.owner(), next.lease(), Duration.ZERO));
                        if (a.isAcquired()) {
                            return Release.grantedTo(next.owner(), a.fencingToken(), next.waitId());
                        }
                    }
                    return r;
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    // the fault: the queue entry stays
                }
            };
        }
    }
}
