package io.lockkit.cdi;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.cdi.internal.LockFactoryHolder;
import io.lockkit.cdi.internal.engine.TransactionCompletion;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Locks bound to the current Jakarta Transactions transaction, for code that locks through the API
 * rather than {@code @Locked}: the lock is released when the transaction completes, commit or
 * rollback, so it covers the commit of the work it protects. Inject it; thread-safe.
 *
 * <pre>{@code
 * @Inject TransactionLocks locks;
 *
 * @Transactional
 * public void book(String seat) throws InterruptedException {
 *     LockHandle hold = locks.lockUntilCompletion("seat:" + seat, LockOptions.waitAtMost(Duration.ofSeconds(5)));
 *     // count, then insert; hold.fencingToken() for the protected resource; no release here
 * }
 * }</pre>
 */
@ApplicationScoped
public class TransactionLocks {

    @Inject
    LockFactoryHolder holder;

    /**
     * Takes the lock of {@code name}, waiting as {@code options} say, and keeps it until the
     * current transaction completes; a second call for the same name in the same transaction joins
     * that hold. The returned handle gives the fencing token, validity and loss; do not release it
     * yourself (the transaction's completion does).
     *
     * @throws IllegalStateException when no transaction is active on this thread, or the container
     *     has no Jakarta Transactions
     * @throws io.lockkit.LockNotAcquiredException when the wait ran out
     * @throws InterruptedException when the waiting thread was interrupted
     */
    public LockHandle lockUntilCompletion(String name, LockOptions options) throws InterruptedException {
        TransactionCompletion transactions = holder.transactions();
        if (!transactions.active()) {
            throw new IllegalStateException(
                    "lockUntilCompletion('" + name + "') needs an active transaction" + " (" + transactions + ")");
        }
        DistributedLockFactory factory = holder.factory();
        LockHandle joined = transactions.heldUntilCompletion(factory, name);
        LockHandle hold = joined != null ? joined : factory.acquire(name, options);
        if (joined != null) {
            joined.acquireAgain();
        }
        if (!transactions.releaseAtCompletion(factory, name, hold, hold::release)) {
            hold.release();
            throw new IllegalStateException("the transaction ended while lockUntilCompletion('" + name + "') waited");
        }
        return hold;
    }
}
