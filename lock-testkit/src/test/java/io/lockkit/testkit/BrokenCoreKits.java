package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Broken providers that break one of the five guarantees every lock makes: mutual exclusion, reentrancy,
 * expiry, owner-only release and increasing fencing tokens. Each wraps a client of
 * {@link BrokenProvidersTest.BrokenKit}'s in-JVM table; {@link BrokenProvidersTest} names the kit group
 * or test that rejects it.
 */
final class BrokenCoreKits {

    private BrokenCoreKits() {}

    static class AlwaysGrantsKit extends BrokenProvidersTest.BrokenKit {
        private final AtomicLong tokens = new AtomicLong();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return Acquisition.acquired(tokens.incrementAndGet());
                }

                @Override
                public Release release(String name, String owner) {
                    return Release.RELEASED;
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return List.of();
                }
            };
        }
    }

    static class NoReentrancyKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    boolean mine = delegate()
                            .inspect(request.name())
                            .map(s -> s.holdCounts().containsKey(request.owner()))
                            .orElse(false);
                    return mine
                            ? Acquisition.busy(Duration.ofMillis(50))
                            : delegate().tryAcquire(request);
                }
            };
        }
    }

    static class NeverExpiresKit extends BrokenProvidersTest.BrokenKit {
        private static final Duration FOREVER = Duration.ofDays(365);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return delegate()
                            .tryAcquire(new LockRequest(request.name(), request.owner(), FOREVER, request.maxWait()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate()
                            .renew(renewals.stream()
                                    .map(r -> new Renewal(r.name(), r.owner(), FOREVER))
                                    .toList());
                }
            };
        }
    }

    static class NonOwnerReleaseKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() == Release.Outcome.NOT_HELD && delegate().forceRelease(name)) {
                        return Release.RELEASED;
                    }
                    return r;
                }
            };
        }
    }

    static class BackwardTokensKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Acquisition a = delegate().tryAcquire(request);
                    return a.isAcquired() ? Acquisition.acquired(1_000_000 - a.fencingToken()) : a;
                }
            };
        }
    }
}
