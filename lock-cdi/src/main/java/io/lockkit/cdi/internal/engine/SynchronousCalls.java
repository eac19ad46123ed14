package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.cdi.WhenBusy;
import io.lockkit.cdi.internal.engine.LockedDeclaration.ReturnKind;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The calls of a {@code @Locked} method whose result is there when it returns (anything but a stage
 * or an adapted type): the calling thread waits for the lock, runs the method, and releases at its
 * return, or at the completion of the JTA transaction active then. Thread-safe.
 */
// Design notes.
// - Joining, in this order: an enclosing @Locked call's hold on this thread (HeldLocks), the current
//   transaction's hold of the name (later calls in one transaction share it), the calling thread's
//   own DistributedLock hold (taken once more, reentrant, no round trip).
// - Inside a JTA transaction the release waits for the transaction's completion: releasing at
//   return would let another caller in before this one's writes are committed.
// - On a thread the runtime says must not block (an event loop) the call fails before it waits.
// - InterruptedException is thrown as is only when the method declares it; otherwise the thread
//   stays interrupted and the call fails with a LockException naming the method.
final class SynchronousCalls implements LockedCalls {

    private final LockedMethod method;
    private final LockedRuntimes runtimes;
    private final boolean declaresInterruption;
    /** What a skipped call returns: empty for an {@code Optional} result, else null. */
    private final @Nullable Object skipped;

    SynchronousCalls(LockedMethod method, ReturnKind kind, LockedRuntimes runtimes, boolean declaresInterruption) {
        this.method = method;
        this.runtimes = runtimes;
        this.declaresInterruption = declaresInterruption;
        this.skipped = kind == ReturnKind.OPTIONAL ? Optional.empty() : null;
    }

    @Override
    public @Nullable Object invoke(
            DistributedLockFactory factory,
            Object[] args,
            LockedMethod.Proceed proceed,
            TransactionCompletion transactions,
            BackendOutage outage)
            throws Exception {
        String name = method.lockName(args);
        HoldKind kind = method.holdKind();
        HeldLocks.Hold hold = HeldLocks.find(factory, name, kind);
        if (hold == null) {
            hold = kind.joinTransaction(transactions, factory, name);
        }
        long acquiredAt = 0; // when this call took the lock itself, for holdAtLeast
        if (hold != null) {
            hold.handle().acquireAgain();
        } else {
            DistributedLock threadLock = kind.threadHold(factory, name);
            if (threadLock != null) {
                return joinThreadHold(threadLock, proceed);
            }
            if (runtimes.mustNotBlock()) {
                throw new IllegalStateException(method.describeBinding()
                        + " would block thread " + Thread.currentThread().getName()
                        + " while it waits for lock " + name + ", and this thread must not block (an event loop):"
                        + " return Uni or CompletionStage from the method, or run it on a worker thread"
                        + " (@Blocking, @RunOnVirtualThread)");
            }
            Optional<LockHandle> acquired = acquire(factory, name, outage);
            if (acquired.isEmpty()) {
                return skipped;
            }
            hold = new HeldLocks.Hold(acquired.get(), kind.held());
            acquiredAt = System.nanoTime();
        }
        return runHeld(factory, name, hold, acquiredAt, proceed, transactions);
    }

    /** Runs the method under {@code hold}; releases at return, or at the transaction's completion. */
    private @Nullable Object runHeld(
            DistributedLockFactory factory,
            String name,
            HeldLocks.Hold hold,
            long acquiredAt,
            LockedMethod.Proceed proceed,
            TransactionCompletion transactions)
            throws Exception {
        LockHandle handle = hold.handle();
        // A READ call that joined an exclusive hold keeps it as the exclusive hold it is.
        String key = hold.held() == HoldKind.Held.EXCLUSIVE
                ? name
                : method.holdKind().transactionKey(name);
        Runnable release = () -> method.release(handle, acquiredAt);
        Runnable releaseNowOrAtCompletion = () -> {
            if (!transactions.releaseAtCompletion(factory, key, handle, release)) {
                release.run();
            }
        };
        Object result = LockedMethod.proceedHolding(factory, name, hold, proceed, releaseNowOrAtCompletion);
        releaseNowOrAtCompletion.run();
        return result;
    }

    /**
     * The calling thread holds the lock through {@link DistributedLock}: take it once more
     * (reentrant, no round trip) instead of waiting for ourselves as a different owner.
     */
    // Not a finally: after a failure proceedOrRelease unlocks and keeps the unlock's own failure as
    // suppressed; after a return the unlock's failure (a lost lock) is the call's.
    @SuppressWarnings("LockNotBeforeTry")
    private static @Nullable Object joinThreadHold(DistributedLock lock, LockedMethod.Proceed proceed)
            throws Exception {
        lock.lock();
        Object result = LockedMethod.proceedOrRelease(proceed, lock::unlock);
        lock.unlock();
        return result;
    }

    /** Waits for the lock as the method says (empty: busy or skipped during an outage). */
    private Optional<LockHandle> acquire(DistributedLockFactory factory, String name, BackendOutage outage)
            throws InterruptedException {
        long began = BackendOutage.attemptBegins();
        Optional<LockHandle> acquired;
        try {
            HoldKind kind = method.holdKind();
            if (method.whenBusy() == WhenBusy.SKIP) {
                acquired = kind.tryAcquire(factory, name, method.options());
            } else {
                acquired = Optional.of(kind.acquire(factory, name, method.options()));
            }
        } catch (InterruptedException e) {
            if (declaresInterruption) {
                throw e;
            }
            Thread.currentThread().interrupt();
            throw new LockException(name, "interrupted while waiting for the lock of " + method.describeBinding(), e);
        } catch (RuntimeException e) {
            if (method.skipsAfter(outage, began, name, e)) {
                return Optional.empty();
            }
            throw e;
        }
        method.skipsAfter(outage, began, name, null);
        return acquired;
    }
}
