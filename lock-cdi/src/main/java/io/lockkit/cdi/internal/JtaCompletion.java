package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.internal.engine.TransactionCompletion;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@link TransactionCompletion} over Jakarta Transactions: releases run in an interposed
 * synchronization's {@code afterCompletion}, after the commit (or rollback) and after the
 * persistence providers' own synchronizations. Thread-safe.
 */
// Design notes.
// - Loaded only when jakarta.transaction is on the class path (LockFactoryHolder checks first), so
//   lock-cdi runs without the JTA API.
// - One synchronization per transaction, kept as a resource of the transaction in the registry,
//   holds every deferred release of that transaction in order; a later @Locked call of the same
//   name within the transaction finds its hold there and joins it (otherwise it would wait for a
//   hold only its own commit releases).
// - afterCompletion may run on another thread (a transaction reaper's rollback): LockHandle
//   release works from any thread. A failure there cannot reach the caller any more; the hold's
//   loss was already reported through LockHandle.lost(), so it is logged.
final class JtaCompletion implements TransactionCompletion {

    private static final System.Logger LOG = System.getLogger(JtaCompletion.class.getName());

    /** The key of this library's resource in each transaction. */
    private static final Object RESOURCE_KEY = new Object() {
        @Override
        public String toString() {
            return "lockkit holds";
        }
    };

    private final TransactionSynchronizationRegistry registry;

    JtaCompletion(TransactionSynchronizationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public @Nullable LockHandle heldUntilCompletion(DistributedLockFactory factory, String name) {
        Holds holds = active() ? (Holds) registry.getResource(RESOURCE_KEY) : null;
        return holds == null ? null : holds.find(factory, name);
    }

    @Override
    public boolean releaseAtCompletion(DistributedLockFactory factory, String name, LockHandle hold, Runnable release) {
        if (!active()) {
            return false;
        }
        try {
            Holds holds = (Holds) registry.getResource(RESOURCE_KEY);
            if (holds == null) {
                holds = new Holds();
                registry.registerInterposedSynchronization(holds);
                registry.putResource(RESOURCE_KEY, holds);
            }
            holds.add(factory, name, hold, release);
            return true;
        } catch (IllegalStateException e) {
            // completing already (a synchronization of its own called us): nothing left to cover
            return false;
        }
    }

    @Override
    public boolean active() {
        int status = registry.getTransactionStatus();
        return status == Status.STATUS_ACTIVE || status == Status.STATUS_MARKED_ROLLBACK;
    }

    @Override
    public String toString() {
        return "JTA transactions (" + registry.getClass().getName() + ")";
    }

    /** The deferred releases of one transaction. */
    private static final class Holds implements Synchronization {
        private record Entry(DistributedLockFactory factory, String name, LockHandle hold, Runnable release) {}

        private final List<Entry> entries = new ArrayList<>();

        synchronized void add(DistributedLockFactory factory, String name, LockHandle hold, Runnable release) {
            entries.add(new Entry(factory, name, hold, release));
        }

        synchronized @Nullable LockHandle find(DistributedLockFactory factory, String name) {
            for (Entry e : entries) {
                if (e.factory() == factory && e.name().equals(name)) {
                    return e.hold();
                }
            }
            return null;
        }

        @Override
        public void beforeCompletion() {}

        @Override
        public void afterCompletion(int status) {
            List<Entry> release;
            synchronized (this) {
                release = new ArrayList<>(entries);
                entries.clear();
            }
            for (int i = release.size() - 1; i >= 0; i--) { // innermost first
                Entry e = release.get(i);
                try {
                    e.release().run();
                } catch (RuntimeException failure) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "lockkit: the lock ''" + e.name() + "'' could not be released"
                                    + " after its transaction "
                                    + (status == Status.STATUS_COMMITTED ? "committed" : "ended")
                                    + ": " + failure.getMessage(),
                            failure);
                }
            }
        }
    }
}
