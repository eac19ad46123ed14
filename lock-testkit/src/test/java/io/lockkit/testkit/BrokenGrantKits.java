package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;

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
}
