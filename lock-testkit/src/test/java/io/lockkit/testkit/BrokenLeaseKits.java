package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.List;
import java.util.Optional;

/**
 * Broken providers whose fault is in a lease: its length when taken, renewed or re-entered, and
 * the loss of a hold. Each wraps a client of
 * {@link BrokenProvidersTest.BrokenKit}'s in-JVM table; {@link BrokenProvidersTest} names the kit group
 * or test that rejects it.
 */
final class BrokenLeaseKits {

    private BrokenLeaseKits() {}

    /** Every lease (and renewal) ten times as long as asked. */
    static class TenfoldLeaseKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(
                                    r.name(), r.owner(), r.lease().multipliedBy(10), r.maxWait(), r.waitId()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate()
                            .renew(renewals.stream()
                                    .map(r -> new Renewal(
                                            r.name(), r.owner(), r.lease().multipliedBy(10)))
                                    .toList());
                }
            };
        }
    }

    /** Acquisitions are right; renewals set ten times the lease asked for. */
    static class TenfoldRenewalKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate()
                            .renew(renewals.stream()
                                    .map(r -> new Renewal(
                                            r.name(), r.owner(), r.lease().multipliedBy(10)))
                                    .toList());
                }
            };
        }
    }

    /** A reentrant acquisition sets its own lease from now, even when that is shorter than the current one. */
    static class ShortensOnReentryKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    boolean mine = delegate()
                            .inspect(r.name())
                            .map(s -> s.holdCounts().containsKey(r.owner()))
                            .orElse(false);
                    Acquisition a = delegate().tryAcquire(r);
                    if (mine && a.isAcquired()) {
                        delegate().renew(List.of(new Renewal(r.name(), r.owner(), r.lease())));
                    }
                    return a;
                }
            };
        }
    }

    /** A reentrant acquisition keeps the current lease, even when the new one is longer. */
    static class KeepsLeaseOnReentryKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Optional<LockState> before = delegate()
                            .inspect(r.name())
                            .filter(s -> s.holdCounts().containsKey(r.owner()));
                    Acquisition a = delegate().tryAcquire(r);
                    if (before.isPresent() && a.isAcquired()) {
                        delegate()
                                .renew(List.of(new Renewal(
                                        r.name(), r.owner(), before.get().remainingLease())));
                    }
                    return a;
                }
            };
        }
    }

    /** Every lease and renewal half as long as asked: the backend frees a lock before its holder's deadline. */
    static class HalvedLeaseKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(
                                    r.name(), r.owner(), r.lease().dividedBy(2), r.maxWait(), r.waitId()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> halved = renewals.stream()
                            .map(r -> new Renewal(r.name(), r.owner(), r.lease().dividedBy(2)))
                            .toList();
                    List<Renewal> gone = delegate().renew(halved);
                    // Answers with the caller's renewals: losses are reported right, only leases are short.
                    List<Renewal> answer = new java.util.ArrayList<>();
                    for (int i = 0; i < renewals.size(); i++) {
                        if (gone.contains(halved.get(i))) {
                            answer.add(renewals.get(i));
                        }
                    }
                    return answer;
                }
            };
        }
    }

    /** Renews what it can, but never says that a hold was gone. */
    static class HidesLossesKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    delegate().renew(renewals);
                    return List.of();
                }
            };
        }
    }
}
