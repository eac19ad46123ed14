package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers whose fault is in how a backend keeps a hold: its owner, its hold count, its
 * lease. Each passed the whole kit before the kit test that rejects it was written; {@link
 * BrokenProvidersTest} names that test. Each wraps a client of {@link BrokenProvidersTest.BrokenKit}'s
 * in-JVM table.
 */
final class BrokenHoldKits {

    private BrokenHoldKits() {}

    /** The owner holding {@code name} now, as the honest table says, or null. */
    static @Nullable String holderOf(LockProvider honest, String name) {
        return honest.inspect(name)
                .flatMap(s -> s.holdCounts().keySet().stream().findFirst())
                .orElse(null);
    }

    /** The client part of an owner id. */
    static String clientOf(String owner) {
        int colon = owner.indexOf(':');
        return colon < 0 ? owner : owner.substring(0, colon);
    }

    /**
     * Renew has no owner check: a renewal whose owner no longer holds the lock renews the lock for
     * whoever holds it now and is reported renewed. After a lapse and a take-over, the old holder's
     * watchdog keeps the new holder's lock alive, and the old holder is never told it lost.
     */
    static class RenewsWhoeverHoldsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> gone = new ArrayList<>();
                    for (Renewal r : delegate().renew(renewals)) {
                        String holder = holderOf(delegate(), r.name());
                        if (holder == null
                                || !delegate()
                                        .renew(List.of(new Renewal(r.name(), holder, r.lease())))
                                        .isEmpty()) {
                            gone.add(r);
                        }
                    }
                    return gone;
                }
            };
        }
    }

    /** A renewal of two or more holds in one call reports none of them lost (a batch path that drops its answers). */
    static class BatchRenewalLosesNothingKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> gone = delegate().renew(renewals);
                    return renewals.size() > 1 ? List.of() : gone;
                }
            };
        }
    }

    /**
     * A renewal batch's answers are matched to its holds by lock name, not by name and owner (as
     * an {@code UPDATE ... RETURNING name} read back into a set of names would be): when one batch
     * renews two holds of one name for different owners, a lapsed hold of one and the current hold
     * of the other, the lost one is answered renewed because the other was.
     */
    static class RenewalsMatchedByNameKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> lost = delegate().renew(renewals);
                    Set<String> renewedNames = new HashSet<>();
                    for (Renewal r : renewals) {
                        if (!lost.contains(r)) {
                            renewedNames.add(r.name());
                        }
                    }
                    return renewals.stream()
                            .filter(r -> !renewedNames.contains(r.name()))
                            .toList();
                }
            };
        }
    }

    /**
     * Release compares owners by their client part: the release of a hold that is gone (its lease
     * lapsed) releases the hold of another owner of the same client that took the lock since.
     */
    static class ReleasesByClientKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    String holder = holderOf(delegate(), name);
                    if (r.outcome() == Release.Outcome.NOT_HELD
                            && holder != null
                            && clientOf(holder).equals(clientOf(owner))) {
                        return delegate().release(name, holder);
                    }
                    return r;
                }
            };
        }
    }

    /**
     * Owner ids are compared by prefix (as {@code LIKE owner || '%'} would): an owner whose id starts
     * with the holder's, or that the holder's starts with ({@code c:h1} and {@code c:h10}), counts as
     * the holder, for acquisition, release and renewal.
     */
    static class OwnersByPrefixKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private String sameAs(String name, String owner) {
                    String holder = holderOf(delegate(), name);
                    return holder != null && (holder.startsWith(owner) || owner.startsWith(holder)) ? holder : owner;
                }

                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(
                                    r.name(), sameAs(r.name(), r.owner()), r.lease(), r.maxWait(), r.waitId()));
                }

                @Override
                public Release release(String name, String owner) {
                    return delegate().release(name, sameAs(name, owner));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    Map<Renewal, Renewal> asked = new LinkedHashMap<>();
                    for (Renewal r : renewals) {
                        asked.put(new Renewal(r.name(), sameAs(r.name(), r.owner()), r.lease()), r);
                    }
                    return delegate().renew(List.copyOf(asked.keySet())).stream()
                            .map(asked::get)
                            .toList();
                }
            };
        }
    }

    /**
     * Hold counts are kept in 16 bits: the 32,768th acquisition by one owner reads back as
     * -32,768, and the next release, finding no count left, frees a lock that is still held.
     */
    static class SixteenBitHoldCountsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    Integer count = delegate()
                            .inspect(name)
                            .map(s -> s.holdCounts().get(owner))
                            .orElse(null);
                    if (count == null || (short) count.intValue() - 1 > 0) {
                        return delegate().release(name, owner);
                    }
                    Release r;
                    do {
                        r = delegate().release(name, owner);
                    } while (r.outcome() == Release.Outcome.STILL_HELD);
                    return r;
                }

                @Override
                public Optional<LockState> inspect(String name) {
                    return delegate().inspect(name).map(s -> {
                        Map<String, Integer> counts = new LinkedHashMap<>();
                        s.holdCounts().forEach((owner, count) -> counts.put(owner, (int) (short) count.intValue()));
                        return new LockState(counts, s.remainingLease(), s.fencingToken(), s.waiters());
                    });
                }
            };
        }
    }

    /** Leases are kept as 32-bit milliseconds: one of 2^31 ms (24.8 days) or more wraps negative and lapses at once. */
    static class ThirtyTwoBitLeasesKit extends LeaseMappingKit {
        @Override
        Duration kept(Duration lease) {
            return Duration.ofMillis((int) lease.toMillis());
        }
    }

    /** Leases are clamped to an hour (a backend's maximum TTL, silently applied). */
    static class HourLeasesKit extends LeaseMappingKit {
        @Override
        Duration kept(Duration lease) {
            return lease.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : lease;
        }
    }

    /** Acquisitions and renewals keep {@link #kept(Duration)} of the lease asked for. */
    abstract static class LeaseMappingKit extends BrokenProvidersTest.BrokenKit {
        abstract Duration kept(Duration lease);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(r.name(), r.owner(), kept(r.lease()), r.maxWait(), r.waitId()));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    Map<Renewal, Renewal> asked = new LinkedHashMap<>();
                    for (Renewal r : renewals) {
                        asked.put(new Renewal(r.name(), r.owner(), kept(r.lease())), r);
                    }
                    return delegate().renew(List.copyOf(asked.keySet())).stream()
                            .map(asked::get)
                            .toList();
                }
            };
        }
    }

    /** Renew (a watchdog renewal, or extend on the caller's thread) clears the caller's interrupt status. */
    static class RenewClearsInterruptKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    Thread.interrupted();
                    return delegate().renew(renewals);
                }
            };
        }
    }

    /**
     * Fencing tokens are counted per client (a sequence per connection, say) instead of per name:
     * each client's first hold of a name gets token 1.
     */
    static class TokensPerClientKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private final java.util.concurrent.atomic.AtomicLong tokens =
                        new java.util.concurrent.atomic.AtomicLong();
                private final Map<String, Long> held = new java.util.concurrent.ConcurrentHashMap<>();

                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    if (!a.isAcquired()) {
                        return a;
                    }
                    long token = held.computeIfAbsent(r.name() + " " + a.fencingToken(), k -> tokens.incrementAndGet());
                    return Acquisition.acquired(token);
                }
            };
        }
    }

    /**
     * Leases are cut to whole milliseconds (as a {@code PEXPIRE} of {@code lease.toMillis()} would
     * be): a lease of 1.999 ms lasts 1 ms, while the holder's client counts 1.999 ms from when it
     * sent the request.
     */
    static class MillisecondLeasesKit extends LeaseMappingKit {
        @Override
        Duration kept(Duration lease) {
            return Duration.ofMillis(lease.toMillis());
        }
    }

    /** Leases are cut to whole seconds (an {@code EXPIRE} in seconds): a lease of 500 ms lapses at once. */
    static class WholeSecondLeasesKit extends LeaseMappingKit {
        @Override
        Duration kept(Duration lease) {
            return Duration.ofSeconds(lease.getSeconds());
        }
    }

    /** Once closed, the provider declares no capability. */
    static class CapabilitiesGoneOnCloseKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private volatile boolean closed;

                @Override
                public java.util.Set<Capability> capabilities() {
                    return closed ? java.util.Set.of() : delegate().capabilities();
                }

                @Override
                public void close() {
                    closed = true;
                    super.close();
                }
            };
        }
    }

    /** Abandon releases the owner's hold, whichever wait (or none) took it: "give back what this owner got". */
    static class AbandonReleasesAnyHoldKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public void abandon(String name, String owner, long waitId) {
                    if (owner.equals(holderOf(delegate(), name))) {
                        Release r;
                        do {
                            r = delegate().release(name, owner);
                        } while (r.outcome() == Release.Outcome.STILL_HELD);
                    }
                }
            };
        }
    }
}
