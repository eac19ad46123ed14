package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Broken providers whose fault is in admitting claims beside others: read/write locks, semaphores
 * and fair queues, the faults of the read/write locks and semaphores users know (Redisson's issue
 * numbers name them). Each wraps {@link BrokenProvidersTest.BrokenKit}'s honest in-JVM table and
 * bends its requests or answers; {@link BrokenProvidersTest} names the kit test that rejects each.
 */
final class BrokenClaimKits {

    private BrokenClaimKits() {}

    /** A kit whose every request passes through {@link #bend} before the honest table sees it. */
    abstract static class BentRequestKit extends BrokenProvidersTest.BrokenKit {
        abstract LockRequest bend(LockProvider honest, LockRequest request);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return delegate().tryAcquire(bend(delegate(), request));
                }
            };
        }
    }

    private static LockRequest withClaim(LockRequest r, Claim claim) {
        return new LockRequest(r.name(), r.owner(), r.lease(), r.maxWait(), r.waitId(), claim);
    }

    /** Admits a reader beside whoever writes: every shared claim is sent as one beside the exclusive holder. */
    static class ReaderBesideWriterKit extends BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            if (r.claim().exclusive()) {
                return r;
            }
            String writer = honest.inspect(r.name())
                    .flatMap(s -> s.holdCounts().keySet().stream().findFirst())
                    .orElse(null);
            return writer == null || writer.equals(r.owner())
                    ? r
                    : withClaim(r, r.claim().beside(writer));
        }
    }

    /** Admits a writer beside readers: every exclusive claim is sent as a shared, unbounded one. */
    static class WriterBesideReadersKit extends BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            return r.claim().exclusive() ? withClaim(r, Claim.shared(1, Claim.UNBOUNDED)) : r;
        }
    }

    /** No writer preference: a writer never queues, so a stream of readers starves it. */
    static class NoWriterPreferenceKit extends BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            return r.claim().exclusive() ? new LockRequest(r.name(), r.owner(), r.lease(), Duration.ZERO) : r;
        }
    }

    /** A crashed holder's permits never come back: every shared hold is leased for a day. */
    static class PermitsNeverLapseKit extends BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            return r.claim().exclusive()
                    ? r
                    : new LockRequest(r.name(), r.owner(), Duration.ofDays(1), r.maxWait(), r.waitId(), r.claim());
        }
    }

    /** Fair in name only: every claim is sent unfair, so a newcomer barges past the queue. */
    static class UnfairKit extends BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            Claim c = r.claim();
            return c.fair() ? withClaim(r, new Claim(c.mode(), c.weight(), c.capacity(), false, c.beside())) : r;
        }
    }

    /** A waiter's place never lapses: every wait is sent as a day's, so a dead waiter blocks the queue for the holder's lease. */
    static class PlacesNeverLapseKit extends BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            return r.waiting()
                    ? new LockRequest(r.name(), r.owner(), r.lease(), Duration.ofDays(1), r.waitId(), r.claim())
                    : r;
        }
    }

    /** A reader's release frees the whole name, other readers' holds with it (Redisson #891). */
    static class ReleaseFreesEveryReaderKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (Release.RELEASED.equals(r)) {
                        delegate().forceRelease(name);
                    }
                    return r;
                }
            };
        }
    }

    /** A reentrant acquisition with a shorter lease cuts the hold's lease to it (Redisson #1110). */
    static class ReentrantLeaseCutsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    if (a.isAcquired()) {
                        delegate().renew(List.of(new Renewal(r.name(), r.owner(), r.lease())));
                    }
                    return a;
                }
            };
        }
    }

    /**
     * Permits counted per client instead of per hold: every owner is mapped to its client id, so a
     * client's second acquisition is a reentrant one that takes no permit.
     */
    static class PermitsPerClientKit extends BrokenProvidersTest.BrokenKit {
        private static final UnaryOperator<String> CLIENT = BrokenHoldKits::clientOf;

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(
                                    r.name(), CLIENT.apply(r.owner()), r.lease(), r.maxWait(), r.waitId(), r.claim()));
                }

                @Override
                public Release release(String name, String owner) {
                    return delegate().release(name, CLIENT.apply(owner));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    return delegate()
                            .renew(renewals.stream()
                                    .map(x -> new Renewal(x.name(), CLIENT.apply(x.owner()), x.lease()))
                                    .toList());
                }
            };
        }
    }

    /**
     * An abandoned wait wakes nobody: the waiters its queue entry held back (readers behind a
     * writer) learn that it left only when their retry hint runs out, the holder's lease.
     */
    static class AbandonWakesNobodyKit extends BrokenWakeUpKits.SilencingKit {
        @Override
        LockProvider quiet(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public void abandon(String name, String owner, long waitId) {
                    silently(() -> {
                        delegate().abandon(name, owner, waitId);
                        return null;
                    });
                }
            };
        }
    }

    /** A capacity check off by one: every bounded claim is sent with one permit more of capacity. */
    static class CapacityOffByOneKit extends BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            Claim c = r.claim();
            return c.exclusive() || c.capacity() == Claim.UNBOUNDED
                    ? r
                    : withClaim(r, new Claim(c.mode(), c.weight(), c.capacity() + 1, c.fair(), c.beside()));
        }
    }

    /**
     * A release that serves the releasing client first: it takes the name at once for a waiter of
     * the same client that this provider saw wait, ahead of older waiters of other clients.
     */
    static class ReleasingClientFirstKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            java.util.Map<String, java.util.Set<String>> waiting = new java.util.concurrent.ConcurrentHashMap<>();
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    java.util.Set<String> owners =
                            waiting.computeIfAbsent(r.name(), n -> java.util.concurrent.ConcurrentHashMap.newKeySet());
                    if (!a.isAcquired() && r.waiting()) {
                        owners.add(r.owner());
                    } else {
                        owners.remove(r.owner());
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    Release released = delegate().release(name, owner);
                    for (String w : waiting.getOrDefault(name, java.util.Set.of())) {
                        if (BrokenHoldKits.clientOf(w).equals(BrokenHoldKits.clientOf(owner))) {
                            delegate().tryAcquire(new LockRequest(name, w, Duration.ofSeconds(30), Duration.ZERO));
                            break;
                        }
                    }
                    return released;
                }
            };
        }
    }
}
