package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.lockkit.cdi.internal.engine.LockedDeclaration.ReturnKind;
import io.lockkit.cdi.spi.AsyncType;
import io.lockkit.cdi.spi.LockedCall;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@code @Locked} method under its lock; built once per method and binding, thread-safe.
 * This is the whole behaviour of {@code @Locked} and needs no CDI: the interceptor only finds the
 * factory and this object.
 */
// Design notes.
// - Every hold is a LockHandle, not a thread-owned DistributedLock: an asynchronous method's lock is
//   released by whichever thread completes its stage, and a nested call joins the outer hold through
//   HeldLocks + acquireAgain(), which also works when the outer method is asynchronous. A
//   synchronous method called while its thread holds the lock through DistributedLock joins that
//   hold instead (an asynchronous one cannot: a thread's hold cannot be released by another thread).
// - Release after a normal return uses release(), which reports a lost hold (LockLostException):
//   a critical section that lost its lock must not look successful. After a failure, the loss is
//   added to the method's exception as suppressed.
// - Inside a JTA transaction a synchronous method's release waits for the transaction's completion
//   (TransactionCompletion): releasing at return would let another caller in before this one's
//   writes are committed. Later calls in the same transaction join that hold.
// - An asynchronous method that does not join an outer hold acquires with acquireAsync: the calling
//   thread (maybe an event loop) never waits nor calls the backend; the method runs on the thread
//   that completes the acquisition once the lock is granted. Acquisition failures come back as
//   failed stages, where callers of such methods look for failures. The body runs on the installed
//   runtime's resume executor (the caller's event-loop context in Quarkus) when it names one.
// - Return types a LockedRuntime adapts (Uni, Multi) are lazy: the adapter's value acquires on each
//   subscription through a LockedCall, so lock-cdi itself knows nothing of their library.
// - On a thread the runtime says must not block (an event loop), a method that would wait for its
//   lock fails before acquiring: blocking there stalls every request the loop serves.
public final class LockedMethod {

    /** A holdAtLeast remainder shorter than this is not worth a deferred release: released at once. */
    private static final Duration MIN_DEFERRED_RELEASE = Duration.ofMillis(1);

    private final LockedDeclaration declaration;
    private final @Nullable String constantName;
    private final boolean declaresInterruption;
    private final LockedRuntimes runtimes;

    private LockedMethod(LockedDeclaration declaration, boolean declaresInterruption) {
        this.declaration = declaration;
        this.runtimes = LockedRuntimes.installed();
        this.declaresInterruption = declaresInterruption;
        List<Object> parts = declaration.nameParts();
        this.constantName = parts.stream().allMatch(String.class::isInstance)
                ? String.join("", parts.stream().map(String.class::cast).toList())
                : null;
    }

    /**
     * Checks {@code method}'s declaration against {@code binding}.
     *
     * @throws IllegalStateException naming the method when the declaration cannot work
     */
    public static LockedMethod of(Method method, Locked binding) {
        try {
            LockedDeclaration declaration = LockedDeclaration.check(
                    new ReflectionSignature(method),
                    LockedValues.of(binding),
                    defaultName(method.getDeclaringClass().getName(), method.getName()));
            boolean interruptible = false;
            for (Class<?> thrown : method.getExceptionTypes()) {
                interruptible |= thrown.isAssignableFrom(InterruptedException.class);
            }
            return new LockedMethod(declaration, interruptible);
        } catch (DeclarationException e) {
            throw new IllegalStateException(message(ReflectionSignature.describe(method), e), e);
        }
    }

    public static String defaultName(String className, String methodName) {
        return className + "." + methodName;
    }

    public static String message(String method, DeclarationException e) {
        return "@Locked on " + method + ": " + e.getMessage();
    }

    /** The options each acquisition uses. */
    public LockOptions options() {
        return declaration.options();
    }

    /** The lock name for these arguments. */
    public String lockName(Object[] args) {
        if (constantName != null) {
            return constantName;
        }
        StringBuilder name = new StringBuilder();
        for (Object part : declaration.nameParts()) {
            if (part instanceof String literal) {
                name.append(literal);
                continue;
            }
            if (part instanceof NameTemplate.Period period) {
                name.append(period.name(System.currentTimeMillis()));
                continue;
            }
            LockedDeclaration.Bound<?> bound = (LockedDeclaration.Bound<?>) part;
            Object value = args[bound.index()];
            for (SignatureModel.Property<?> property : bound.path()) {
                if (value == null) {
                    break;
                }
                value = read(
                        (Method) Objects.requireNonNull(property.accessor(), "accessor"),
                        value); // reflection models carry one
            }
            if (value == null) {
                throw new IllegalArgumentException("@Locked on " + declaration.describe() + ": " + bound.text()
                        + " of lock name template is null (a null would lock every such call under one name)");
            }
            name.append(value);
        }
        return name.toString();
    }

    private static Object read(Method accessor, Object target) {
        try {
            return accessor.invoke(target);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + accessor + " for a lock name: " + e.getMessage(), e);
        }
    }

    /** The method call to run under the lock. */
    @FunctionalInterface
    public interface Proceed {
        @Nullable
        Object proceed() throws Exception;
    }

    /** Like {@link #invoke(DistributedLockFactory, Object[], Proceed, TransactionCompletion)} without transactions. */
    public @Nullable Object invoke(DistributedLockFactory factory, Object[] args, Proceed proceed) throws Exception {
        return invoke(factory, args, proceed, TransactionCompletion.NONE);
    }

    /**
     * Takes the lock (or joins this thread's outer hold of it, or the current transaction's), runs
     * {@code proceed}, and releases the lock when the call returns, or when the transaction active
     * at that moment completes, or, for asynchronous methods, when its stage completes.
     */
    @SuppressWarnings("FutureReturnValueIgnored") // an asynchronous method's future goes back to its caller
    public @Nullable Object invoke(
            DistributedLockFactory factory, Object[] args, Proceed proceed, TransactionCompletion transactions)
            throws Exception {
        ReturnKind kind = declaration.returnKind();
        if (kind == ReturnKind.ADAPTED) {
            AsyncType type = Objects.requireNonNull(runtimes.asyncType(declaration.returnType()), "adapter");
            return type.defer(() -> new Call(factory, args, proceed, runtimes.resumeExecutor()));
        }
        String name;
        try {
            name = lockName(args);
        } catch (RuntimeException e) {
            if (kind.async()) {
                return CompletableFuture.failedFuture(e);
            }
            throw e;
        }
        LockHandle handle = HeldLocks.find(factory, name);
        if (handle == null && kind.async()) {
            return invokeAsync(factory, name, proceed);
        }
        if (handle == null) {
            handle = transactions.heldUntilCompletion(factory, name);
        }
        long acquiredAt = 0; // when this call took the lock itself, for holdAtLeast
        if (handle != null) {
            handle.acquireAgain();
        } else {
            // A synchronous method here: an asynchronous one not joining a hold went to invokeAsync.
            DistributedLock threadLock = factory.getLock(name);
            if (threadLock.isHeldByCurrentThread()) {
                return joinThreadHold(threadLock, proceed);
            }
            if (runtimes.mustNotBlock()) {
                throw new IllegalStateException("@Locked on " + declaration.describe()
                        + " would block thread " + Thread.currentThread().getName()
                        + " while it waits for lock " + name + ", and this thread must not block (an event loop):"
                        + " return Uni or CompletionStage from the method, or run it on a worker thread"
                        + " (@Blocking, @RunOnVirtualThread)");
            }
            Optional<LockHandle> acquired = acquire(factory, name);
            if (acquired.isEmpty()) {
                return skipped(kind);
            }
            handle = acquired.get();
            acquiredAt = System.nanoTime();
        }
        LockHandle hold = handle;
        long taken = acquiredAt;
        Runnable release = () -> release(hold, taken);
        Object result;
        HeldLocks.push(factory, name, handle);
        try {
            result = proceed.proceed();
        } catch (Throwable failure) {
            HeldLocks.pop();
            try {
                if (kind.async() || !transactions.releaseAtCompletion(factory, name, handle, release)) {
                    release.run();
                }
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        HeldLocks.pop();
        if (kind.async() && result != null) {
            return releaseOnCompletion((CompletionStage<?>) result, release);
        }
        if (kind.async() || !transactions.releaseAtCompletion(factory, name, handle, release)) {
            release.run();
        }
        return result;
    }

    /**
     * An asynchronous method that does not join an outer hold: acquires without blocking the calling
     * thread, runs the method when the lock is granted (on the thread that completes the
     * acquisition), and releases when the method's stage completes. The caller cancelling the
     * returned future abandons the wait, or cancels the method's future once it runs.
     */
    @SuppressWarnings("FutureReturnValueIgnored") // dependents that only react to completion
    private Object invokeAsync(DistributedLockFactory factory, String name, Proceed proceed) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        AtomicReference<@Nullable CompletableFuture<?>> running = new AtomicReference<>();
        CompletableFuture<Optional<LockHandle>> acquisition;
        try {
            acquisition = startAcquisition(factory, name);
        } catch (LockException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        Executor resume = runtimes.resumeExecutor();
        BiConsumer<@Nullable Optional<LockHandle>, @Nullable Throwable> granted = (held, failure) ->
                run(factory, name, held == null ? null : held.orElse(null), failure, proceed, result, running);
        if (resume == null) {
            acquisition.whenComplete(granted);
        } else {
            acquisition.whenCompleteAsync(granted, resume);
        }
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                acquisition.cancel(false); // still waiting: abandon the wait (a grant that races it is released)
                CompletableFuture<?> method = running.get();
                if (method != null) {
                    method.cancel(false); // running: its completion releases the lock
                }
            }
        });
        return result;
    }

    /** Starts waiting for the lock: busy yields an empty result when the method skips, else waits. */
    @SuppressWarnings("FutureReturnValueIgnored") // dependents that only pass a cancellation on
    private CompletableFuture<Optional<LockHandle>> startAcquisition(DistributedLockFactory factory, String name) {
        if (declaration.whenBusy() == WhenBusy.SKIP) {
            return factory.tryAcquireAsync(name, declaration.options()).toCompletableFuture();
        }
        CompletableFuture<LockHandle> acquiring =
                factory.acquireAsync(name, declaration.options()).toCompletableFuture();
        CompletableFuture<Optional<LockHandle>> acquired = acquiring.thenApply(Optional::of);
        // Cancelling the dependent does not reach the acquisition: pass it on, so the wait is abandoned,
        // and release a grant that came before the cancellation reached it.
        acquired.whenComplete((held, failure) -> {
            if (acquired.isCancelled() && !acquiring.cancel(false)) {
                acquiring.thenAccept(LockHandle::release);
            }
        });
        return acquired;
    }

    /**
     * One acquisition of a method whose return type a runtime adapts: the adapter calls acquire,
     * proceed and release, perhaps on different threads.
     */
    private final class Call implements LockedCall {
        private final DistributedLockFactory factory;
        private final Object[] args;
        private final Proceed proceed;
        private final @Nullable Executor resume;
        private final AtomicBoolean ended = new AtomicBoolean();
        private final AtomicReference<@Nullable LockHandle> held = new AtomicReference<>();
        private volatile @Nullable CompletableFuture<Optional<LockHandle>> acquisition;
        private volatile @Nullable String name;
        private volatile long acquiredAt;

        Call(DistributedLockFactory factory, Object[] args, Proceed proceed, @Nullable Executor resume) {
            this.factory = factory;
            this.args = args;
            this.proceed = proceed;
            this.resume = resume;
        }

        @Override
        @SuppressWarnings("FutureReturnValueIgnored") // the dependent completes the stage returned
        public CompletionStage<Boolean> acquire() {
            String lockName;
            CompletableFuture<Optional<LockHandle>> waiting;
            try {
                lockName = lockName(args);
                name = lockName;
                LockHandle outer = HeldLocks.find(factory, lockName);
                if (outer != null) {
                    outer.acquireAgain(); // joins the hold of an enclosing call on this thread
                    waiting = CompletableFuture.completedFuture(Optional.of(outer));
                } else {
                    waiting = startAcquisition(factory, lockName);
                }
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            acquisition = waiting;
            CompletableFuture<Boolean> granted = new CompletableFuture<>();
            BiConsumer<@Nullable Optional<LockHandle>, @Nullable Throwable> done = (result, failure) -> {
                if (failure != null) {
                    granted.completeExceptionally(
                            failure instanceof CompletionException && failure.getCause() != null
                                    ? failure.getCause()
                                    : failure);
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
                    LockedMethod.this.release(handle, acquiredAt); // released while it was being granted
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
                throw new IllegalStateException("@Locked on " + declaration.describe() + ": proceed before the grant");
            }
            HeldLocks.push(factory, lockName, handle);
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
                LockedMethod.this.release(handle, acquiredAt);
            }
        }
    }

    /**
     * The acquisition of an asynchronous method ended with {@code handle} (null: busy, skipped) or
     * {@code failure}: runs the method under the hold, or completes {@code result}.
     */
    private void run(
            DistributedLockFactory factory,
            String name,
            @Nullable LockHandle handle,
            @Nullable Throwable failure,
            Proceed proceed,
            CompletableFuture<Object> result,
            AtomicReference<@Nullable CompletableFuture<?>> running) {
        if (failure != null) {
            result.completeExceptionally(
                    failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure);
            return;
        }
        if (handle == null) {
            result.complete(skippedValue(declaration.returnKind()));
            return;
        }
        long acquiredAt = System.nanoTime();
        Runnable release = () -> release(handle, acquiredAt);
        if (result.isDone()) {
            release.run(); // cancelled as the lock was granted: the method does not run
            return;
        }
        Object value;
        HeldLocks.push(factory, name, handle);
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
        if (stage instanceof CompletableFuture<?> method) {
            running.set(method);
            if (result.isCancelled()) {
                method.cancel(false);
            }
        }
    }

    /** Releases {@code hold}, or leaves it to lapse once {@code holdAtLeast} has passed since {@code acquiredAt}. */
    private void release(LockHandle hold, long acquiredAt) {
        Duration minimum = declaration.holdAtLeast();
        if (acquiredAt != 0 && !minimum.isZero()) {
            Duration rest = minimum.minusNanos(System.nanoTime() - acquiredAt);
            if (rest.compareTo(MIN_DEFERRED_RELEASE) >= 0) {
                hold.releaseAfter(rest);
                return;
            }
        }
        hold.release();
    }

    /**
     * The calling thread holds the lock through {@link DistributedLock}: take it once more
     * (reentrant, no round trip) instead of waiting for ourselves as a different owner.
     */
    private static @Nullable Object joinThreadHold(DistributedLock lock, Proceed proceed) throws Exception {
        Object result;
        lock.lock();
        try {
            result = proceed.proceed();
        } catch (Throwable failure) {
            try {
                lock.unlock();
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        lock.unlock();
        return result;
    }

    private Optional<LockHandle> acquire(DistributedLockFactory factory, String name) throws InterruptedException {
        try {
            if (declaration.whenBusy() == WhenBusy.SKIP) {
                return factory.tryAcquire(name, declaration.options());
            }
            return Optional.of(factory.acquire(name, declaration.options()));
        } catch (InterruptedException e) {
            if (declaresInterruption && !declaration.returnKind().async()) {
                throw e;
            }
            Thread.currentThread().interrupt();
            throw new LockException(
                    name, "interrupted while waiting for the lock of @Locked " + declaration.describe(), e);
        }
    }

    /** What the stage of an asynchronous method that was skipped completes with. */
    private static @Nullable Object skippedValue(ReturnKind kind) {
        return kind == ReturnKind.STAGE_OF_OPTIONAL || kind == ReturnKind.FUTURE_OF_OPTIONAL ? Optional.empty() : null;
    }

    /** What a skipped synchronous call returns (an asynchronous one completes its stage with {@link #skippedValue}). */
    private static @Nullable Object skipped(ReturnKind kind) {
        return kind == ReturnKind.OPTIONAL ? Optional.empty() : null;
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the dependent that cancels the original needs no handle
    private static Object releaseOnCompletion(CompletionStage<?> stage, Runnable release) {
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

    @Override
    public String toString() {
        return "LockedMethod[" + declaration.describe() + ", options=" + declaration.options() + ", whenBusy="
                + declaration.whenBusy() + "]";
    }
}
