package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * Count-then-insert bookings in a store whose writes become visible only when their transaction
 * commits (a transactional resource enlisted with Narayana), the way a database behaves: a lock
 * released before the commit lets the next caller see no booking and book the seat again.
 */
@ApplicationScoped
public class Bookings {

    private static final TransactionManager TRANSACTIONS = com.arjuna.ats.jta.TransactionManager.transactionManager();

    /** Committed bookings, in commit order; a seat twice is a double booking. */
    static final List<String> COMMITTED = new CopyOnWriteArrayList<>();

    private static final Set<String> TAKEN = ConcurrentHashMap.newKeySet();

    @Inject
    Seats seats;

    /** A transactional service that calls the locked check-and-insert (the lock is taken inside the transaction). */
    @Transactional
    public boolean book(String seat) throws SystemException {
        return seats.bookIfFree(seat);
    }

    /** The same, with a rollback after the booking. */
    @Transactional
    public void bookThenFail(String seat) throws SystemException {
        seats.bookIfFree(seat);
        throw new IllegalStateException("payment refused");
    }

    /** The locked part: no transaction of its own, so it runs in the caller's. */
    @ApplicationScoped
    public static class Seats {
        @io.lockkit.cdi.Locked("seat:{seat}")
        public boolean bookIfFree(String seat) throws SystemException {
            if (TAKEN.contains(seat)) {
                return false;
            }
            try {
                Transaction tx = TRANSACTIONS.getTransaction();
                tx.enlistResource(new PendingInsert(seat));
                // Committing takes a moment (a flush, a network round trip): the window a lock
                // released at return instead of after the commit leaves open.
                tx.registerSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        LockSupport.parkNanos(20_000_000L);
                    }

                    @Override
                    public void afterCompletion(int status) {}
                });
            } catch (jakarta.transaction.RollbackException e) {
                throw new IllegalStateException(e);
            }
            return true;
        }
    }

    /** One insert, applied at commit. */
    private record PendingInsert(String seat) implements XAResource {
        @Override
        public void commit(Xid xid, boolean onePhase) {
            COMMITTED.add(seat);
            TAKEN.add(seat);
        }

        @Override
        public void end(Xid xid, int flags) {}

        @Override
        public void forget(Xid xid) {}

        @Override
        public int getTransactionTimeout() {
            return 0;
        }

        @Override
        public boolean isSameRM(XAResource other) {
            return false;
        }

        @Override
        public int prepare(Xid xid) {
            return XA_OK;
        }

        @Override
        public Xid[] recover(int flag) {
            return new Xid[0];
        }

        @Override
        public void rollback(Xid xid) throws XAException {}

        @Override
        public boolean setTransactionTimeout(int seconds) {
            return false;
        }

        @Override
        public void start(Xid xid, int flags) {}
    }

    static void reset() {
        COMMITTED.clear();
        TAKEN.clear();
    }
}
