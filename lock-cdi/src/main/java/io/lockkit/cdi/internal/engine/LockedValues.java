package io.lockkit.cdi.internal.engine;

import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.LockMode;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import java.time.temporal.ChronoUnit;

/**
 * The members of one {@code @Locked} or {@code @DistributedBulkhead}, read from the annotation or
 * from the CDI language model. {@code binding} is the annotation's simple name, for messages;
 * {@code capacity}, {@code permits} and {@code fair} are the bulkhead's ({@code 0}, {@code 0},
 * {@code false} for {@code @Locked}), {@code mode} {@code @Locked}'s.
 */
public record LockedValues(
        String binding,
        String template,
        long waitTime,
        ChronoUnit waitUnit,
        long leaseTime,
        ChronoUnit leaseUnit,
        WhenBusy whenBusy,
        long holdAtLeast,
        ChronoUnit holdAtLeastUnit,
        LockMode mode,
        int capacity,
        int permits,
        boolean fair) {

    /** {@code binding} of {@code @Locked}. */
    public static final String LOCKED = "Locked";

    /** {@code binding} of {@code @DistributedBulkhead}. */
    public static final String BULKHEAD = "DistributedBulkhead";

    /** The members of a {@code @Locked}. */
    @SuppressWarnings("TooManyParameters") // one per annotation member
    public static LockedValues locked(
            String template,
            long waitTime,
            ChronoUnit waitUnit,
            long leaseTime,
            ChronoUnit leaseUnit,
            WhenBusy whenBusy,
            long holdAtLeast,
            ChronoUnit holdAtLeastUnit,
            LockMode mode) {
        return new LockedValues(
                LOCKED,
                template,
                waitTime,
                waitUnit,
                leaseTime,
                leaseUnit,
                whenBusy,
                holdAtLeast,
                holdAtLeastUnit,
                mode,
                0,
                0,
                false);
    }

    /** The members of a {@code @DistributedBulkhead}. */
    @SuppressWarnings("TooManyParameters") // one per annotation member
    public static LockedValues bulkhead(
            String template,
            long waitTime,
            ChronoUnit waitUnit,
            long leaseTime,
            ChronoUnit leaseUnit,
            WhenBusy whenBusy,
            int capacity,
            int permits,
            boolean fair) {
        return new LockedValues(
                BULKHEAD,
                template,
                waitTime,
                waitUnit,
                leaseTime,
                leaseUnit,
                whenBusy,
                0,
                ChronoUnit.SECONDS,
                LockMode.EXCLUSIVE,
                capacity,
                permits,
                fair);
    }

    static LockedValues of(Locked locked) {
        return locked(
                locked.value(),
                locked.waitTime(),
                locked.waitUnit(),
                locked.leaseTime(),
                locked.leaseUnit(),
                locked.whenBusy(),
                locked.holdAtLeast(),
                locked.holdAtLeastUnit(),
                locked.mode());
    }

    static LockedValues of(DistributedBulkhead bulkhead) {
        return bulkhead(
                bulkhead.value(),
                bulkhead.waitTime(),
                bulkhead.waitUnit(),
                bulkhead.leaseTime(),
                bulkhead.leaseUnit(),
                bulkhead.whenBusy(),
                bulkhead.capacity(),
                bulkhead.permits(),
                bulkhead.fair());
    }

    /** Whether these are a bulkhead's members. */
    public boolean isBulkhead() {
        return BULKHEAD.equals(binding);
    }

    /** What a call holds, once the members are checked ({@link LockedDeclaration#check}). */
    HoldKind holdKind() {
        if (isBulkhead()) {
            return new HoldKind.Permits(permits, capacity, fair);
        }
        return mode == LockMode.READ ? new HoldKind.Read() : new HoldKind.Exclusive();
    }
}
