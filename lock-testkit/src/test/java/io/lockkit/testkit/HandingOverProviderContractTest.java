package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/**
 * The whole contract against an in-JVM backend that, like the Redis provider, hands a released
 * lock straight to a waiter of the releasing client ({@link Release#grantedTo}), so that the
 * core's direct-grant paths (passing the grant on, taking it without a call, giving back a grant
 * whose wait ended) are exercised by the kit too.
 */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("An in-JVM backend that grants a released lock to a waiter of the releasing client")
class HandingOverProviderContractTest extends LockContractTest {

    /** The in-JVM backend of this test's clients. */
    final LocalLockProvider backend = new LocalLockProvider();

    @Override
    protected LockProvider newProvider() {
        return new HandingOver(backend.newClient());
    }

    @Override
    protected Optional<BackendControl> backendControl() {
        return Optional.of(BackendControl.of(backend::stopBackend, backend::startBackend));
    }

    @Override
    protected boolean startTokensAt(String name, long next) {
        backend.startTokensAt(next);
        return true;
    }

    /**
     * One client: remembers its latest waiting request per name, and on a release that frees the
     * lock takes it for that waiter at once, with the waiter's lease counted from the release.
     * The waiter's next attempt of the same wait takes the grant (its lease set anew); abandon of
     * that wait gives it back. {@link BrokenGrantKits} breaks it through the two package-private hooks.
     */
    static class HandingOver extends ForwardingLockProvider {
        /** The latest waiting request per name. */
        final Map<String, LockRequest> waiting;
        /** Grants not yet taken: "name owner waitId" → token. */
        final Map<String, Long> grants;

        HandingOver(LockProvider delegate) {
            this(delegate, new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
        }

        /** A client whose waiting requests and grants are kept in the given maps (shared, for a backend of several clients). */
        HandingOver(LockProvider delegate, Map<String, LockRequest> waiting, Map<String, Long> grants) {
            super(delegate);
            this.waiting = waiting;
            this.grants = grants;
        }

        @Override
        public Acquisition tryAcquire(LockRequest r) {
            Long granted = grants.remove(key(r.name(), r.owner(), r.waitId()));
            if (granted != null) {
                Acquisition taken = takeGrant(r, granted);
                if (taken.isAcquired()) {
                    return taken;
                }
            }
            Acquisition a = delegate().tryAcquire(r);
            if (!a.isAcquired() && r.waiting() && r.waitId() != 0) {
                waiting.put(r.name(), r);
            } else {
                forget(r.name(), r.owner(), r.waitId());
            }
            return a;
        }

        @Override
        public Release release(String name, String owner) {
            Release r = delegate().release(name, owner);
            LockRequest next = waiting.remove(name);
            // Hand-overs are exclusive and unfair only: a shared or fair claim waits for its own attempt.
            if (r.outcome() == Release.Outcome.RELEASED
                    && next != null
                    && next.claim().exclusive()
                    && !next.claim().fair()) {
                Acquisition a =
                        delegate().tryAcquire(new LockRequest(name, next.owner(), grantLease(next), Duration.ZERO));
                if (a.isAcquired()) {
                    grants.put(key(name, next.owner(), next.waitId()), a.fencingToken());
                    return Release.grantedTo(next.owner(), a.fencingToken(), next.waitId());
                }
            }
            return r;
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            forget(name, owner, waitId);
            if (grants.remove(key(name, owner, waitId)) != null) {
                delegate().release(name, owner);
            }
            delegate().abandon(name, owner, waitId); // the backend's own queue entry (writer preference, fair order)
        }

        /** The lease a direct grant to the waiter of {@code next} gets: that request's. */
        Duration grantLease(LockRequest next) {
            return next.lease();
        }

        /** An attempt of a wait that meets its grant (token {@code token}): the same hold, its lease set anew. */
        Acquisition takeGrant(LockRequest r, long token) {
            return delegate()
                            .renew(List.of(new Renewal(r.name(), r.owner(), r.lease())))
                            .isEmpty()
                    ? Acquisition.acquired(token)
                    : Acquisition.busy(Duration.ZERO);
        }

        void forget(String name, String owner, long waitId) {
            waiting.computeIfPresent(name, (n, w) -> w.owner().equals(owner) && w.waitId() == waitId ? null : w);
        }

        static String key(String name, String owner, long waitId) {
            return name + " " + owner + " " + waitId;
        }
    }
}
