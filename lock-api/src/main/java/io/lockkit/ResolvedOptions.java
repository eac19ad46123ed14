package io.lockkit;

import io.lockkit.spi.Claim;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * {@link LockOptions} resolved against the factory's defaults, once per acquisition, so the wait
 * and the hold it makes look nothing up and check nothing for null. Immutable.
 *
 * @param lease the lease to ask for: the explicit one, or the watchdog's
 * @param watchdog whether the watchdog keeps the hold (no explicit lease)
 * @param renewalInterval how often the watchdog renews; the lease itself for an explicit lease
 * @param waitsForever whether the wait has no deadline
 * @param maxWait the longest wait; {@link LockOptions#MAX_DURATION} when it waits forever
 * @param claim what the hold takes of the name ({@link Claim#EXCLUSIVE} for a lock)
 */
record ResolvedOptions(
        Duration lease,
        boolean watchdog,
        Duration renewalInterval,
        boolean waitsForever,
        Duration maxWait,
        Claim claim) {

    /** {@code options} with {@code defaults} filling in what they do not set. */
    static ResolvedOptions of(LockOptions options, LockOptions defaults) {
        return of(options.lease().orElse(null), options.waitTime().orElse(null), options, defaults);
    }

    /**
     * An explicit {@code lease} (null: the watchdog's, from {@code options} then {@code defaults})
     * and {@code wait} (null: forever).
     */
    static ResolvedOptions of(
            @Nullable Duration lease, @Nullable Duration wait, LockOptions options, LockOptions defaults) {
        return lease == null
                ? new ResolvedOptions(
                        options.effectiveWatchdogLease(defaults),
                        true,
                        options.effectiveRenewalInterval(defaults),
                        wait == null,
                        wait == null ? LockOptions.MAX_DURATION : wait,
                        Claim.EXCLUSIVE)
                : new ResolvedOptions(
                        lease,
                        false,
                        lease,
                        wait == null,
                        wait == null ? LockOptions.MAX_DURATION : wait,
                        Claim.EXCLUSIVE);
    }

    /** These options, for a hold that takes {@code claim} of the name. */
    @SuppressWarnings("ReferenceEquality") // the same claim object, nearly always a constant: no copy needed
    ResolvedOptions withClaim(Claim claim) {
        return claim == this.claim
                ? this
                : new ResolvedOptions(lease, watchdog, renewalInterval, waitsForever, maxWait, claim);
    }

    /** A wait of zero: one attempt, no waiting. */
    boolean triesOnce() {
        return !waitsForever && maxWait.isZero();
    }

    /**
     * @throws IllegalArgumentException when the watchdog would renew no sooner than its lease ends
     */
    void checkRenewalInterval() {
        if (watchdog && renewalInterval.compareTo(lease) >= 0) {
            throw new IllegalArgumentException("renewalInterval (" + renewalInterval
                    + ") must be shorter than the watchdog lease (" + lease + ")");
        }
    }

    // Written out, as in Grant (the JDK 17 ObjectMethods cache).
    @Override
    public boolean equals(Object o) {
        return o instanceof ResolvedOptions other
                && lease.equals(other.lease)
                && watchdog == other.watchdog
                && renewalInterval.equals(other.renewalInterval)
                && waitsForever == other.waitsForever
                && maxWait.equals(other.maxWait)
                && claim.equals(other.claim);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(lease, watchdog, renewalInterval, waitsForever, maxWait, claim);
    }

    @Override
    public String toString() {
        return "ResolvedOptions[lease=" + lease + (watchdog ? " (watchdog, renewed every " + renewalInterval + ")" : "")
                + ", wait=" + (waitsForever ? "forever" : maxWait)
                + (claim.equals(Claim.EXCLUSIVE) ? "" : ", " + claim) + "]";
    }
}
