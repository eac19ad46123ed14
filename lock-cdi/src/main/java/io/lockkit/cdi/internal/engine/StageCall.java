package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One call of a {@code @Locked} method returning {@code CompletionStage} or {@code CompletableFuture}
 * that does not join an outer hold: acquires without blocking the calling thread, runs the method
 * when the lock is granted (on the thread that completes the acquisition, or the runtime's resume
 * executor), and releases when the method's stage completes. The caller cancelling the returned
 * future abandons the wait, or cancels the method's future once it runs. Made by {@link StageCalls}
 * for each call; used once; thread-safe.
 */
final class StageCall {

    private final LockedMethod method;
    private final DistributedLockFactory factory;
    private final String name;
    private final LockedMethod.Proceed proceed;
    private final BackendOutage outage;
    private final @Nullable Object skipped;
    private final CompletableFuture<Object> result = new CompletableFuture<>();
    private final AtomicReference<@Nullable CompletableFuture<?>> running = new AtomicReference<>();

    /** {@code skipped}: what the stage completes with when the call is skipped ({@link StageCalls}). */
    StageCall(
            LockedMethod method,
            DistributedLockFactory factory,
            String name,
            LockedMethod.Proceed proceed,
            BackendOutage outage,
            @Nullable Object skipped) {
        this.method = method;
        this.factory = factory;
        this.name = name;
        this.proceed = proceed;
        this.outage = outage;
        this.skipped = skipped;
    }

    /** Starts the acquisition; returns the future the caller gets. */
    @SuppressWarnings("FutureReturnValueIgnored") // dependents that only react to completion
    CompletableFuture<Object> start(@Nullable Executor resume) {
        long began = BackendOutage.attemptBegins();
        CompletableFuture<Optional<LockHandle>> acquisition;
        try {
            acquisition = method.startAcquisition(factory, name);
        } catch (LockException | IllegalArgumentException e) {
            if (method.skipsAfter(outage, began, name, e)) {
                return CompletableFuture.completedFuture(skipped);
            }
            return CompletableFuture.failedFuture(e);
        }
        BiConsumer<@Nullable Optional<LockHandle>, @Nullable Throwable> granted =
                (held, failure) -> run(began, held == null ? null : held.orElse(null), failure);
        if (resume == null) {
            acquisition.whenComplete(granted);
        } else {
            acquisition.whenCompleteAsync(granted, resume);
        }
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                acquisition.cancel(false); // still waiting: abandon the wait (a grant that races it is released)
                CompletableFuture<?> body = running.get();
                if (body != null) {
                    body.cancel(false); // running: its completion releases the lock
                }
            }
        });
        return result;
    }

    /**
     * The acquisition ended with {@code handle} (null: busy, skipped) or {@code thrown}: runs the
     * method under the hold, or completes the result.
     */
    private void run(long began, @Nullable LockHandle handle, @Nullable Throwable thrown) {
        Throwable failure = LockedMethod.unwrap(thrown);
        if (method.skipsAfter(outage, began, name, failure)) {
            result.complete(skipped);
            return;
        }
        if (failure != null) {
            result.completeExceptionally(failure);
            return;
        }
        if (handle == null) {
            result.complete(skipped);
            return;
        }
        long acquiredAt = System.nanoTime();
        Runnable release = () -> method.release(handle, acquiredAt);
        if (result.isDone()) {
            release.run(); // cancelled as the lock was granted: the method does not run
            return;
        }
        Object value;
        HeldLocks.push(
                factory, name, new HeldLocks.Hold(handle, method.holdKind().held()));
        try {
            value = proceed.proceed();
        } catch (Throwable methodFailure) {
            HeldLocks.pop();
            try {
                release.run();
            } catch (RuntimeException releaseFailure) {
                methodFailure.addSuppressed(releaseFailure);
            }
            result.completeExceptionally(methodFailure);
            return;
        }
        HeldLocks.pop();
        if (value == null) {
            try {
                release.run();
                result.complete(null);
            } catch (RuntimeException releaseFailure) {
                result.completeExceptionally(releaseFailure);
            }
            return;
        }
        CompletionStage<?> stage = (CompletionStage<?>) value;
        completeAfterRelease(stage, release, result);
        if (stage instanceof CompletableFuture<?> body) {
            running.set(body);
            if (result.isCancelled()) {
                body.cancel(false);
            }
        }
    }

    /**
     * The future to give the caller of an asynchronous method that joined a hold: completes as
     * {@code stage} does, after {@code release}; cancelling it cancels the method's own future.
     */
    @SuppressWarnings("FutureReturnValueIgnored") // the dependent that cancels the original needs no handle
    static Object releaseOnCompletion(CompletionStage<?> stage, Runnable release) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        completeAfterRelease(stage, release, result);
        if (stage instanceof CompletableFuture<?> original) {
            // Cancelling what the caller got cancels the method's own future, whose completion then
            // releases the lock; otherwise the lock would stay held by work nobody waits for.
            result.whenComplete((value, failure) -> {
                if (result.isCancelled()) {
                    original.cancel(false);
                }
            });
        }
        return result;
    }

    /** Releases when {@code stage} completes, then completes {@code result} as {@code stage} did. */
    @SuppressWarnings("FutureReturnValueIgnored") // the dependent only releases and passes the outcome on
    private static void completeAfterRelease(
            CompletionStage<?> stage, Runnable release, CompletableFuture<Object> result) {
        // The release hangs on a dependent nobody else can see: a dependent the caller could cancel
        // or complete first would skip its action and leave the lock held.
        stage.whenComplete((value, failure) -> {
            RuntimeException releaseFailure = null;
            try {
                release.run();
            } catch (RuntimeException e) {
                releaseFailure = e;
            }
            if (failure != null) {
                if (releaseFailure != null) {
                    failure.addSuppressed(releaseFailure);
                }
                result.completeExceptionally(failure);
            } else if (releaseFailure != null) {
                result.completeExceptionally(releaseFailure);
            } else {
                result.complete(value);
            }
        });
    }
}
