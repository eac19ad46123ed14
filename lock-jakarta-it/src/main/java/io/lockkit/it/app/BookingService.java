package io.lockkit.it.app;

import io.lockkit.cdi.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/** Bookings under {@code @Locked} combined with CDI {@code @Transactional} in both orders. */
@ApplicationScoped
public class BookingService {

    @Inject
    BookingStore store;

    @Inject
    LockedBooking locked;

    /** {@code @Locked @Transactional} on one method. */
    @Locked(value = "booking:{slot}", waitTime = 120)
    @Transactional
    public boolean lockedTransactional(String slot, String who) {
        return store.bookIfFree(slot, who);
    }

    /** A {@code @Transactional} method that calls a {@code @Locked} one: the lock is taken inside the transaction. */
    @Transactional
    public boolean transactionalCallsLocked(String slot, String who) {
        return locked.book(slot, who);
    }

    /** The {@code @Locked} callee of {@link #transactionalCallsLocked}. */
    @ApplicationScoped
    public static class LockedBooking {

        @Inject
        BookingStore store;

        @Locked(value = "booking:{slot}", waitTime = 120)
        public boolean book(String slot, String who) {
            return store.bookIfFree(slot, who);
        }
    }
}
