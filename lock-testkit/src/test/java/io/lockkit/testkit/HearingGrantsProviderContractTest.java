package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/**
 * The whole contract against an in-JVM backend that, like the Redis provider, hands a released
 * lock straight to a waiter of any client: to one of the releasing client as a direct grant
 * ({@link Release#grantedTo}), to one of another client as a grant that client hears
 * ({@link LockProvider.WakeUpListener#granted}), with its lease cut to a claim time. So the core's
 * heard-grant paths (the lease counted from the wait's latest attempt, a first lease shorter than
 * the one asked for, renewed early, a grant whose wait ended given back) are exercised by the kit.
 * The backend and its control are {@link HandingOverProviderContractTest}'s.
 */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("An in-JVM backend that grants a released lock to a waiter of any client, and tells that waiter's client")
class HearingGrantsProviderContractTest extends HandingOverProviderContractTest {

    private final Hearing.Shared shared = new Hearing.Shared();

    @Override
    protected LockProvider newProvider() {
        return new Hearing(backend.newClient(), shared);
    }

    /**
     * One client. Every client of a backend shares one {@link Shared}: the latest waiting request
     * per name (of any client), the grants not yet taken, and the listeners of every client. A
     * release that frees the lock takes it for that waiter at once: with the waiter's lease when it
     * is of the releasing client (answered as a direct grant), else with the lesser of that lease
     * and {@link #CLAIM_TIME}, announced to the listeners of the name. The waiter's next attempt
     * of the same wait takes the grant (its lease set anew); abandon of that wait gives it back.
     * The waiter's side (an attempt that meets its grant, the waiting requests) is {@link
     * HandingOverProviderContractTest.HandingOver}'s; {@link BrokenGrantKits} breaks it through the two
     * package-private hooks.
     */
    static class Hearing extends HandingOverProviderContractTest.HandingOver {
        /** The longest lease a grant to another client's waiter gets, as a backend's claim timeout. */
        static final Duration CLAIM_TIME = Duration.ofSeconds(2);

        /** What the clients of one backend share. */
        static final class Shared {
            final Map<String, LockRequest> waiting = new ConcurrentHashMap<>();
            final Map<String, Long> grants = new ConcurrentHashMap<>();

            final Map<String, List<WakeUpListener>> listeners = new ConcurrentHashMap<>();
            /** Set while a release that may grant runs: the in-JVM backend's own wake-up is held back then. */
            final ThreadLocal<Boolean> quiet = ThreadLocal.withInitial(() -> false);

            void announce(String name, Consumer<WakeUpListener> call) {
                for (WakeUpListener l : listeners.getOrDefault(name, List.of())) {
                    call.accept(l);
                }
            }
        }

        private final Shared shared;

        Hearing(LockProvider delegate, Shared shared) {
            super(delegate, shared.waiting, shared.grants);
            this.shared = shared;
        }

        @Override
        public Release release(String name, String owner) {
            LockRequest next = waiting.get(name);
            // Hand-overs are exclusive and unfair only: a shared or fair claim waits for its own attempt.
            if (next == null || !next.claim().exclusive() || next.claim().fair()) {
                return delegate().release(name, owner);
            }
            Release r;
            shared.quiet.set(true);
            try {
                r = delegate().release(name, owner);
            } finally {
                shared.quiet.set(false);
            }
            if (r.outcome() != Release.Outcome.RELEASED) {
                return r;
            }
            boolean local = clientOf(owner).equals(clientOf(next.owner()));
            Duration lease = local ? next.lease() : grantLease(next);
            Acquisition a = waiting.remove(name, next)
                    ? delegate().tryAcquire(new LockRequest(name, next.owner(), lease, Duration.ZERO))
                    : Acquisition.busy(Duration.ZERO);
            if (!a.isAcquired()) {
                shared.announce(name, l -> l.released(null)); // the wake-up held back
                return r;
            }
            long token = a.fencingToken();
            grants.put(key(name, next.owner(), next.waitId()), token);
            if (local) {
                return Release.grantedTo(next.owner(), token, next.waitId());
            }
            Duration told = announcedLease(next, lease);
            shared.announce(name, l -> l.granted(next.owner(), next.waitId(), token, told));
            return new Release(Release.Outcome.RELEASED, next.owner());
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            forget(name, owner, waitId);
            if (grants.remove(key(name, owner, waitId)) != null) {
                release(name, owner);
            }
            delegate().abandon(name, owner, waitId); // the backend's own queue entry (writer preference, fair order)
        }

        @Override
        public Subscription subscribe(String name, WakeUpListener listener) {
            Subscription s = delegate().subscribe(name, new WakeUpListener() {
                @Override
                public void released(String grantee) {
                    if (!shared.quiet.get()) {
                        listener.released(grantee);
                    }
                }

                @Override
                public void missedNotifications() {
                    listener.missedNotifications();
                }
            });
            shared.listeners
                    .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                    .add(listener);
            return () -> {
                shared.listeners.getOrDefault(name, List.of()).remove(listener);
                s.close();
            };
        }

        /** The lease a grant to a waiter of another client gets: the lesser of its request's and the claim time. */
        @Override
        Duration grantLease(LockRequest next) {
            return next.lease().compareTo(CLAIM_TIME) < 0 ? next.lease() : CLAIM_TIME;
        }

        /** The lease a grant to a waiter of another client is announced with: the one it got. */
        Duration announcedLease(LockRequest next, Duration lease) {
            return lease;
        }

        private static String clientOf(String owner) {
            int colon = owner.lastIndexOf(':');
            return colon < 0 ? owner : owner.substring(0, colon);
        }
    }
}
