package io.lockkit.it.app;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.UUID;

/**
 * Count-then-insert on the server's default datasource; joins whatever JTA transaction is active,
 * and makes its commit take a little while (as a commit that flushes real work does), so that a lock
 * released before the commit lets the next caller count before the row is visible.
 */
@ApplicationScoped
public class BookingStore {

    static final long PAUSE_MILLIS = 30;

    @PersistenceContext(unitName = "lockkit-it")
    EntityManager em;

    @Resource
    TransactionSynchronizationRegistry transactions;

    /** Books {@code slot} for {@code who} when nobody holds it yet; true when this call inserted the row. */
    public boolean bookIfFree(String slot, String who) {
        long taken = count(slot);
        SharedState.pause(PAUSE_MILLIS); // widen the window between the count and the insert's commit
        if (taken > 0) {
            return false;
        }
        em.persist(new Booking(UUID.randomUUID().toString(), slot, who));
        em.flush();
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                SharedState.pause(PAUSE_MILLIS);
            }

            @Override
            public void afterCompletion(int status) {
                // nothing to undo
            }
        });
        return true;
    }

    /** Rows booked for {@code slot}. */
    public long count(String slot) {
        return em.createQuery("select count(b) from Booking b where b.slot = :slot", Long.class)
                .setParameter("slot", slot)
                .getSingleResult();
    }
}
