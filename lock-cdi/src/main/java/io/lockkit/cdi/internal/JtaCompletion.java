package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.internal.engine.DeferredReleases;
import io.lockkit.cdi.internal.engine.TransactionCompletion;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
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
// - The releases and their order are DeferredReleases' (shared with lock-spring's transactions).
final class JtaCompletion implements TransactionCompletion {

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

    /** The deferred releases of one transaction, as its interposed synchronization. */
    private static final class Holds extends DeferredReleases implements Synchronization {
        @Override
        public void beforeCompletion() {}

        @Override
        public void afterCompletion(int status) {
            releaseAll(status == Status.STATUS_COMMITTED);
        }
    }
}
