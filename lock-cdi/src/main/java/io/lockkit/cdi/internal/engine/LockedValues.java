package io.lockkit.cdi.internal.engine;

import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import java.time.temporal.ChronoUnit;

/** The members of one {@code @Locked}, read from the annotation or from the CDI language model. */
public record LockedValues(
        String template,
        long waitTime,
        ChronoUnit waitUnit,
        long leaseTime,
        ChronoUnit leaseUnit,
        WhenBusy whenBusy,
        long holdAtLeast,
        ChronoUnit holdAtLeastUnit) {

    static LockedValues of(Locked locked) {
        return new LockedValues(
                locked.value(),
                locked.waitTime(),
                locked.waitUnit(),
                locked.leaseTime(),
                locked.leaseUnit(),
                locked.whenBusy(),
                locked.holdAtLeast(),
                locked.holdAtLeastUnit());
    }
}
