package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.spi.LockedCall;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a {@code @Locked} method whose return type a runtime adapts ({@code Uni},
 * {@code Multi}): the adapter calls acquire, proceed and release, perhaps on different threads.
 * Thread-safe.
 */
final class AdaptedCall implements LockedCall {
    private final LockedMethod method;
    private final DistributedLockFactory factory;
    private final Object[] args;
    private final LockedMethod.Proceed proceed;
    private final BackendOutage outage;
    private final @Nullable Executor resume;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicReference<@Nullable LockHandle> held = new AtomicReference<>();
    private volatile @Nullable CompletableFuture<Optional<LockHandle>> acquisition;
    private volatile @Nullable String name;
    private volatile long acquiredAt;
    /** What the hold is: the method's kind, or an enclosing call's exclusive hold a READ call joined. */
    private volatile HoldKind.Held heldKind;

    AdaptedCall(
            LockedMethod method,
            DistributedLockFactory factory,
            Object[] args,
            LockedMethod.Proceed proceed,
            BackendOutage outage,
            @Nullable Executor resume) {
        this.method = method;
        this.factory = factory;
        this.args = args;
        this.proceed = proceed;
        this.outage = outage;
        this.resume = resume;
        this.heldKind = method.holdKind().held();
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // the dependent completes the stage returned
    public CompletionStage<Boolean> acquire() {
        String lockName;
        CompletableFuture<Optional<LockHandle>> waiting;
        long began = BackendOutage.attemptBegins();
        try {
            lockName = method.lockName(args);
            name = lockName;
            HeldLocks.Hold outer = HeldLocks.find(factory, lockName, method.holdKind());
            if (outer != null) {
                outer.handle().acquireAgain(); // joins the hold of an enclosing call on this thread
                heldKind = outer.held();
                waiting = CompletableFuture.completedFuture(Optional.of(outer.handle()));
            } else {
                waiting = method.startAcquisition(factory, lockName);
            }
        } catch (RuntimeException e) {
            String failedName = name;
            if (failedName != null && method.skipsAfter(outage, began, failedName, e)) {
                return CompletableFuture.completedFuture(false);
            }
            return CompletableFuture.failedFuture(e);
        }
        acquisition = waiting;
        CompletableFuture<Boolean> granted = new CompletableFuture<>();
        BiConsumer<@Nullable Optional<LockHandle>, @Nullable Throwable> done = (result, thrown) -> {
            Throwable failure = LockedMethod.unwrap(thrown);
            if (method.skipsAfter(outage, began, lockName, failure)) {
                granted.complete(false);
                return;
            }
            if (failure != null) {
                granted.completeExceptionally(failure);
                return;
            }
            LockHandle handle = result == null ? null : result.orElse(null);
            if (handle == null) {
                granted.complete(false);
                return;
            }
            acquiredAt = System.nanoTime();
            held.set(handle);
            if (ended.get() && held.compareAndSet(handle, null)) {
                method.release(handle, acquiredAt); // released while it was being granted
            }
            granted.complete(true);
        };
        if (resume == null) {
            waiting.whenComplete(done);
        } else {
            waiting.whenCompleteAsync(done, resume);
        }
        return granted;
    }

    @Override
    public @Nullable Object proceed() throws Exception {
        LockHandle handle = held.get();
        String lockName = name;
        if (handle == null || lockName == null) {
            throw new IllegalStateException("@Locked on " + method.describe() + ": proceed before the grant");
        }
        HeldLocks.push(factory, lockName, new HeldLocks.Hold(handle, heldKind));
        try {
            return proceed.proceed();
        } finally {
            HeldLocks.pop();
        }
    }

    @Override
    public void release() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<Optional<LockHandle>> waiting = acquisition;
        if (waiting != null) {
            waiting.cancel(false); // still waiting: abandon the wait (a grant racing it is released)
        }
        LockHandle handle = held.getAndSet(null);
        if (handle != null) {
            method.release(handle, acquiredAt);
        }
    }
}
