package io.lockkit;

import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LockObserver.LossCause;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link LockLeadership}'s thread calls out to: the listeners (an exception is logged, never
 * thrown into the campaign), the release of a term's lock (a failure leaves it to its lease), and
 * the log lines of a failing campaign (one warning, then DEBUG until an attempt succeeds).
 */
final class LeaderCallbacks {

    private static final System.Logger LOG = System.getLogger(LockLeadership.class.getName());

    private final String name;
    private final LeadershipOptions.Resolved options;

    LeaderCallbacks(String name, LeadershipOptions.Resolved options) {
        this.name = LockException.abbreviate(name);
        this.options = options;
    }

    /** Calls the onElected listeners; returns false when one threw. */
    boolean elected(Term t) {
        for (Consumer<? super Term> l : options.elected()) {
            try {
                l.accept(t);
            } catch (RuntimeException | Error e) {
                rethrowFatal(e);
                LOG.log(
                        System.Logger.Level.WARNING,
                        "leadership '" + name + "': onElected failed for " + t + "; stepping down",
                        e);
                Thread.interrupted();
                return false;
            }
        }
        Thread.interrupted(); // a callback's interrupt must not end the next campaign
        return true;
    }

    void revoked(Term t, RevocationReason reason) {
        for (BiConsumer<? super Term, RevocationReason> l : options.revoked()) {
            try {
                l.accept(t, reason);
            } catch (RuntimeException | Error e) {
                rethrowFatal(e);
                LOG.log(System.Logger.Level.WARNING, "leadership '" + name + "': onRevoked failed for " + t, e);
            }
        }
        Thread.interrupted();
    }

    /** Releases a term's lock, whatever became of it; a failure leaves it to its lease. */
    void release(LockHandle h) {
        try {
            h.close();
        } catch (LockLostException e) {
            // lost already: nothing left to release
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "leadership '" + name + "': releasing the term's lock failed; another instance can lead once its"
                            + " lease lapses",
                    e);
        }
    }

    void campaignFailed(int failures, RuntimeException e) {
        if (failures == 1) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "leadership '" + name + "': campaigning failed; retrying (further failures are logged at DEBUG"
                            + " until an attempt succeeds)",
                    e);
        } else {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "leadership '" + name + "': campaigning failed again (" + failures + " in a row)",
                    e);
        }
    }

    void campaignsAgain(int failures) {
        LOG.log(
                System.Logger.Level.INFO,
                "leadership ''{0}'': campaigning again after {1} failed attempt(s)",
                name,
                failures);
    }

    void callbackOverran(long waitedNanos) {
        LOG.log(
                System.Logger.Level.WARNING,
                "leadership ''{0}'': a callback has not returned {1} ms after close(); releasing the lock anyway",
                name,
                java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(waitedNanos));
    }

    /** The revocation reason for a hold lost for {@code cause}. */
    static RevocationReason reasonOf(@Nullable LossCause cause) {
        if (cause == null) {
            return RevocationReason.NOT_HELD;
        }
        return switch (cause) {
            case LEASE_EXPIRED -> RevocationReason.LEASE_EXPIRED;
            case NOT_HELD -> RevocationReason.NOT_HELD;
            case FORCE_RELEASED -> RevocationReason.FORCE_RELEASED;
            case FACTORY_CLOSED -> RevocationReason.CLOSED;
        };
    }

    private static void rethrowFatal(Throwable e) {
        if (e instanceof VirtualMachineError v) {
            throw v;
        }
    }
}
