package io.lockkit.it.app;

import io.lockkit.cdi.Locked;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

/** A {@code @Locked} method of a stateless session bean: container-managed transaction (REQUIRED), the Jakarta EE default. */
@Stateless
public class BookingEjb {

    @Inject
    BookingStore store;

    @Locked(value = "booking:{slot}", waitTime = 120)
    public boolean book(String slot, String who) {
        return store.bookIfFree(slot, who);
    }
}
