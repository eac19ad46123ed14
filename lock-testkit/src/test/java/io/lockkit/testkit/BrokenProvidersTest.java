package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;

/**
 * The kit is only as good as the broken providers it rejects: each provider here breaks one
 * guarantee, and the kit group that covers it must fail.
 */
class BrokenProvidersTest {

    @Test
    @DisplayName("a provider that always grants fails mutual exclusion")
    void alwaysGrantingProviderIsRejected() {
        assertRejected(AlwaysGrantsKit.class, LockContractTest.MutualExclusion.class);
    }

    @Test
    @DisplayName("a provider without reentrancy fails the reentrancy group")
    void providerWithoutReentrancyIsRejected() {
        assertRejected(NoReentrancyKit.class, LockContractTest.Reentrancy.class);
    }

    @Test
    @DisplayName("a provider whose leases never expire fails the expiry group")
    void providerWithoutExpiryIsRejected() {
        assertRejected(NeverExpiresKit.class, LockContractTest.Expiry.class);
    }

    @Test
    @DisplayName("a provider that lets a non-owner release fails the expiry group")
    void providerReleasingForNonOwnersIsRejected() {
        assertRejected(NonOwnerReleaseKit.class, LockContractTest.Expiry.class);
    }

    @Test
    @DisplayName("a provider whose tokens go backwards fails the fencing group")
    void providerWithBackwardTokensIsRejected() {
        assertRejected(BackwardTokensKit.class, LockContractTest.Fencing.class);
    }

    @Test
    @DisplayName("a provider that ignores wait timeouts fails the waiting group")
    void providerIgnoringWaitTimeoutsIsRejected() {
        assertRejected(IgnoresWaitTimeoutsKit.class, LockContractTest.Waiting.class);
    }

    @Test
    @DisplayName("a provider whose release grants the lock to a local waiter without passing the grant on fails the hand-over group")
    void providerDroppingItsGrantsIsRejected() {
        assertRejected(DropsGrantsKit.class, LockContractTest.HandOver.class);
    }

    @Test
    @DisplayName("the honest provider passes the same groups")
    void honestProviderPassesTheSameGroups() {
        for (Class<?> group : List.of(LockContractTest.MutualExclusion.class, LockContractTest.Reentrancy.class,
                LockContractTest.Expiry.class, LockContractTest.Fencing.class, LockContractTest.HandOver.class)) {
            Events tests = run(HonestKit.class, group);
            assertThat(tests.failed().count()).as("failures of the honest provider in %s", group.getSimpleName()).isZero();
            assertThat(tests.succeeded().count()).isPositive();
        }
    }

    private static void assertRejected(Class<? extends LockContractTest> kit, Class<?> group) {
        Events tests = run(kit, group);
        assertThat(tests.started().count()).as("tests started").isPositive();
        assertThat(tests.failed().count())
                .as("failed tests of %s in %s; passed: %s", kit.getSimpleName(), group.getSimpleName(),
                        tests.succeeded().stream().map(e -> e.getTestDescriptor().getDisplayName()).collect(Collectors.toList()))
                .isPositive();
    }

    private static Events run(Class<? extends LockContractTest> kit, Class<?> group) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedClass(List.of(kit), group))
                .execute()
                .testEvents();
    }

    /** A kit over a table of local providers, each wrapped by {@link #wrap}. */
    abstract static class BrokenKit extends LockContractTest {
        private final LocalLockProvider backend = new LocalLockProvider();

        @Override
        protected LockProvider newProvider() {
            return wrap(backend.newClient());
        }

        abstract LockProvider wrap(LockProvider honest);
    }

    static class HonestKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return honest;
        }
    }

    static class AlwaysGrantsKit extends BrokenKit {
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

    static class NoReentrancyKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    boolean mine = delegate().inspect(request.name())
                            .map(s -> s.holdCounts().containsKey(request.owner())).orElse(false);
                    return mine ? Acquisition.busy(Duration.ofMillis(50)) : delegate().tryAcquire(request);
                }
            };
        }
    }

    static class NeverExpiresKit extends BrokenKit {
        private static final Duration FOREVER = Duration.ofDays(365);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return delegate().tryAcquire(new LockRequest(request.name(), request.owner(), FOREVER, request.maxWait()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate().renew(renewals.stream().map(r -> new Renewal(r.name(), r.owner(), FOREVER)).toList());
                }
            };
        }
    }

    static class NonOwnerReleaseKit extends BrokenKit {
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

    static class BackwardTokensKit extends BrokenKit {
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

    static class IgnoresWaitTimeoutsKit extends BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    // Blocks until the lock is free, whatever the caller's wait.
                    while (true) {
                        Acquisition a = delegate().tryAcquire(request);
                        if (a.isAcquired() || !request.waiting() || Thread.currentThread().isInterrupted()) {
                            return a;
                        }
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return a;
                        }
                    }
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
    static class DropsGrantsKit extends BrokenKit {
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
                        Acquisition a = delegate().tryAcquire(new LockRequest(name, next.owner(), next.lease(), Duration.ZERO));
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
}
