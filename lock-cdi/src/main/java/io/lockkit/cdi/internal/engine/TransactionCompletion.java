package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * Keeps holds until the caller's transaction completes, so a lock covers the commit of the work it
 * protects. CDI-free; {@link #NONE} where no transaction manager is present.
 */
public interface TransactionCompletion {

    /** No transactions here: every release happens at once. */
    TransactionCompletion NONE = new TransactionCompletion() {
        @Override
        public boolean active() {
            return false;
        }

        @Override
        public @Nullable LockHandle heldUntilCompletion(DistributedLockFactory factory, String name) {
            return null;
        }

        @Override
        public boolean releaseAtCompletion(
                DistributedLockFactory factory, String name, LockHandle hold, Runnable release) {
            return false;
        }

        @Override
        public String toString() {
            return "no transactions";
        }
    };

    /** Whether a transaction is active (or marked for rollback) on this thread. */
    boolean active();

    /**
     * The hold of {@code name} the current transaction keeps until it completes, or null (also when
     * no transaction is active): a later call in the same transaction joins it rather than waiting
     * for it.
     */
    @Nullable
    LockHandle heldUntilCompletion(DistributedLockFactory factory, String name);

    /**
     * Runs {@code release} (the release of {@code hold}) when the current transaction completes,
     * whether it commits or rolls back, and answers true; answers false, registering nothing, when
     * no transaction is active on this thread, and the caller releases it now.
     */
    boolean releaseAtCompletion(DistributedLockFactory factory, String name, LockHandle hold, Runnable release);
}
