package io.lockkit.testkit;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers of the read/write lock's and the semaphore's faults beyond admission: the
 * wake-ups a release owes, the downgrade, and the renewal of permits (Redisson's issue numbers name
 * the ones users met). Each wraps {@link BrokenProvidersTest.BrokenKit}'s honest in-JVM table;
 * {@link BrokenProvidersTest} names the kit test that rejects each.
 */
final class BrokenPrimitiveKits {

    private BrokenPrimitiveKits() {}

    /** Whether {@code owner} holds {@code name} shared (a reader, permits) on {@code provider}. */
    private static boolean holdsShared(LockProvider provider, String name, String owner) {
        return provider.inspect(name)
                .map(s -> s.holdCounts().containsKey(owner) && !s.claimOf(owner).exclusive())
                .orElse(false);
    }

    /**
     * A release's wake-up reaches one listening client only: after a writer's release, the readers
     * of the other clients sleep until their retry hint, the writer's lease, so readers behind a
     * writer get in one client at a time (Redisson #1542).
     */
    static class OneClientWokenKit extends BrokenProvidersTest.BrokenKit {
        /** Set on the releasing thread once a listener heard the release; the table calls them there. */
        private final ThreadLocal<Boolean> heard = ThreadLocal.withInitial(() -> false);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    heard.set(false);
                    try {
                        return delegate().release(name, owner);
                    } finally {
                        heard.set(false);
                    }
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            if (grantee != null || !heard.get()) {
                                heard.set(grantee == null);
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
     * A shared holder's release wakes nobody: a writer waiting for the last reader learns that it
     * left only when its retry hint runs out, the reader's lease (Redisson #3891, where a waiter
     * missed the unlock message until the lease ran out).
     */
    static class SharedReleaseWakesNobodyKit extends BrokenWakeUpKits.SilencingKit {
        @Override
        LockProvider quiet(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    return holdsShared(delegate(), name, owner)
                            ? silently(() -> delegate().release(name, owner))
                            : delegate().release(name, owner);
                }
            };
        }
    }

    /**
     * No downgrade: a read claim is never let beside its owner's own write hold, so a writer taking
     * the read lock is refused, or waits for itself (Redisson #4217).
     */
    static class NoDowngradeKit extends BrokenClaimKits.BentRequestKit {
        @Override
        LockRequest bend(LockProvider honest, LockRequest r) {
            Claim c = r.claim();
            if (c.beside() == null) {
                return r;
            }
            return new LockRequest(
                    r.name(),
                    r.owner(),
                    r.lease(),
                    r.maxWait(),
                    r.waitId(),
                    new Claim(c.mode(), c.weight(), c.capacity(), c.fair(), null));
        }
    }

    /**
     * Permits are leased but never renewed: a renewal of a shared hold is answered as done without
     * reaching the table, so a long task's permit lapses while its holder believes it valid, and
     * another client takes it (Redisson's {@code RPermitExpirableSemaphore}).
     */
    static class PermitsNeverRenewedKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> exclusive = new ArrayList<>();
                    for (Renewal r : renewals) {
                        if (!holdsShared(delegate(), r.name(), r.owner())) {
                            exclusive.add(r);
                        }
                    }
                    return exclusive.isEmpty() ? List.of() : delegate().renew(exclusive);
                }
            };
        }
    }
}
