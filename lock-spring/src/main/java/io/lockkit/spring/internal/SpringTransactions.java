package io.lockkit.spring.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.internal.engine.DeferredReleases;
import io.lockkit.cdi.internal.engine.TransactionCompletion;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@link TransactionCompletion} over Spring-managed transactions: a {@code @Locked} method that
 * returns inside a transaction ({@code @Transactional}, a {@code TransactionTemplate}) keeps its lock
 * until the transaction has committed or rolled back, as under JTA. Thread-safe.
 */
// Design notes.
// - Whichever proxy is outside: when @Transactional is outside the @Locked advisor, the method
//   returns inside the transaction and its release is registered here; when @Locked is outside, the
//   transaction has completed before the method returns and the release is immediate. Either way
//   the next holder sees the committed row.
// - One synchronization per transaction, bound as a transaction resource, holds every deferred
//   release in order; a later @Locked call of the same name in the transaction joins its hold.
//   suspend/resume unbind and rebind it, so that a REQUIRES_NEW transaction inside has its own.
// - afterCompletion runs after the commit (or rollback); the releases are DeferredReleases', as
//   under JTA.
final class SpringTransactions implements TransactionCompletion {

    /** The key of lockkit's resource in each transaction. */
    private static final Object RESOURCE_KEY = new Object() {
        @Override
        public String toString() {
            return "lockkit holds";
        }
    };

    @Override
    public boolean active() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    @Override
    public @Nullable LockHandle heldUntilCompletion(DistributedLockFactory factory, String name) {
        Holds holds = active() ? (Holds) TransactionSynchronizationManager.getResource(RESOURCE_KEY) : null;
        return holds == null ? null : holds.find(factory, name);
    }

    @Override
    public boolean releaseAtCompletion(DistributedLockFactory factory, String name, LockHandle hold, Runnable release) {
        if (!active()) {
            return false;
        }
        Holds holds = (Holds) TransactionSynchronizationManager.getResource(RESOURCE_KEY);
        if (holds == null) {
            holds = new Holds();
            TransactionSynchronizationManager.registerSynchronization(holds);
            TransactionSynchronizationManager.bindResource(RESOURCE_KEY, holds);
        }
        holds.add(factory, name, hold, release);
        return true;
    }

    @Override
    public String toString() {
        return "Spring-managed transactions";
    }

    /** The deferred releases of one transaction, as its synchronization. */
    private static final class Holds extends DeferredReleases implements TransactionSynchronization {
        @Override
        public void suspend() {
            TransactionSynchronizationManager.unbindResourceIfPossible(RESOURCE_KEY);
        }

        @Override
        public void resume() {
            TransactionSynchronizationManager.bindResource(RESOURCE_KEY, this);
        }

        @Override
        public void afterCompletion(int status) {
            TransactionSynchronizationManager.unbindResourceIfPossible(RESOURCE_KEY);
            releaseAll(status == STATUS_COMMITTED);
        }
    }
}
