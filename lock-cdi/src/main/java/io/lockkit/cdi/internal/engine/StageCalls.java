package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.internal.engine.LockedDeclaration.ReturnKind;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The calls of a {@code @Locked} method returning {@code CompletionStage} or {@code CompletableFuture}:
 * the lock is held until the method's stage completes, and failures to take it come back as failed
 * stages. Thread-safe.
 */
// Design notes.
// - A call that does not join an outer hold acquires without blocking the calling thread (a
//   StageCall); one that does (HeldLocks: an enclosing @Locked call on this thread) takes the outer
//   hold once more and runs at once. The hold is a LockHandle either way, released by whichever
//   thread completes the stage; never a thread's DistributedLock, nor left to a JTA transaction.
// - The body resumes on the runtime's resume executor, read at each call (the caller's context).
final class StageCalls implements LockedCalls {

    private final LockedMethod method;
    private final LockedRuntimes runtimes;
    /** What the stage of a skipped call completes with: empty for a stage of {@code Optional}, else null. */
    private final @Nullable Object skipped;

    StageCalls(LockedMethod method, ReturnKind kind, LockedRuntimes runtimes) {
        this.method = method;
        this.runtimes = runtimes;
        this.skipped =
                kind == ReturnKind.STAGE_OF_OPTIONAL || kind == ReturnKind.FUTURE_OF_OPTIONAL ? Optional.empty() : null;
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // the call's future goes back to its caller
    public @Nullable Object invoke(
            DistributedLockFactory factory,
            Object[] args,
            LockedMethod.Proceed proceed,
            TransactionCompletion transactions,
            BackendOutage outage)
            throws Exception {
        String name;
        try {
            name = method.lockName(args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        HeldLocks.Hold hold;
        try {
            hold = HeldLocks.find(factory, name, method.holdKind());
        } catch (IllegalMonitorStateException upgrade) {
            return CompletableFuture.failedFuture(upgrade);
        }
        if (hold == null) {
            return new StageCall(method, factory, name, proceed, outage, skipped).start(runtimes.resumeExecutor());
        }
        LockHandle handle = hold.handle();
        handle.acquireAgain();
        Runnable release = () -> method.release(handle, 0);
        Object result = LockedMethod.proceedHolding(factory, name, hold, proceed, release);
        if (result != null) {
            return StageCall.releaseOnCompletion((CompletionStage<?>) result, release);
        }
        release.run();
        return null;
    }
}
