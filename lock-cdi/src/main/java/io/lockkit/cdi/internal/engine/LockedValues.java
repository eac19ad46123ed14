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

    static LockedValues of(Locked locked) {
        return new LockedValues(
                LOCKED,
                locked.value(),
                locked.waitTime(),
                locked.waitUnit(),
                locked.leaseTime(),
                locked.leaseUnit(),
                locked.whenBusy(),
                locked.holdAtLeast(),
                locked.holdAtLeastUnit(),
                locked.mode(),
                0,
                0,
                false);
    }

    /** A bulkhead's members; it has no {@code holdAtLeast} (0) nor {@code mode}. */
    static LockedValues of(DistributedBulkhead bulkhead) {
        return new LockedValues(
                BULKHEAD,
                bulkhead.value(),
                bulkhead.waitTime(),
                bulkhead.waitUnit(),
                bulkhead.leaseTime(),
                bulkhead.leaseUnit(),
                bulkhead.whenBusy(),
                0,
                ChronoUnit.SECONDS,
                LockMode.EXCLUSIVE,
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
