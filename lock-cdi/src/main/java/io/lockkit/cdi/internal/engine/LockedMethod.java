package io.lockkit.cdi.internal.engine;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.lockkit.cdi.internal.engine.LockedDeclaration.ReturnKind;
import io.lockkit.cdi.spi.AsyncType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.TemporalAccessor;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
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
//   runtime's resume executor (the caller's event-loop context in Quarkus) when it names one. That
//   path is AsyncInvocation; AdaptedCall is the one of adapted types.
// - Return types a LockedRuntime adapts (Uni, Multi) are lazy: the adapter's value acquires on each
//   subscription through a LockedCall, so lock-cdi itself knows nothing of their library.
// - On a thread the runtime says must not block (an event loop), a method that would wait for its
//   lock fails before acquiring: blocking there stalls every request the loop serves.
// - An unavailable backend (BackendUnavailableException) skips a whenBusy = SKIP method as a busy
//   lock does: it never runs without its lock either way, and a scheduled job that threw on every
//   tick of an outage filled the log with the scheduler's stack traces. Every acquisition's outcome
//   goes to the application's BackendOutage, which logs an outage once, and once more when a call
//   takes (or finds busy) a lock again.
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
            } else if (part instanceof NameTemplate.Period period) {
                name.append(period.name(System.currentTimeMillis()));
            } else if (part instanceof LockedDeclaration.BoundPeriod<?> timed) {
                name.append(timed.period().name(epochMillis(value(args, timed.source()))));
            } else {
                name.append(value(args, (LockedDeclaration.Bound<?>) part));
            }
        }
        return name.toString();
    }

    /** The argument or property {@code bound} names; never null. */
    private Object value(Object[] args, LockedDeclaration.Bound<?> bound) {
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
        return value;
    }

    /** A time of one of {@link LockedDeclaration#TIME_TYPES} (the declaration checked it), in epoch milliseconds. */
    private static long epochMillis(Object time) {
        return Instant.from((TemporalAccessor) time).toEpochMilli();
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

    /**
     * Takes the lock (or joins this thread's outer hold of it, or the current transaction's), runs
     * {@code proceed}, and releases the lock when the call returns, or when the transaction active
     * at that moment completes, or, for asynchronous methods, when its stage completes. An
     * unavailable backend is recorded in {@code outage}; a {@link WhenBusy#SKIP} method is then
     * skipped as if the lock were busy, any other fails with {@link BackendUnavailableException}.
     */
    @SuppressWarnings("FutureReturnValueIgnored") // an asynchronous method's future goes back to its caller
    public @Nullable Object invoke(
            DistributedLockFactory factory,
            Object[] args,
            Proceed proceed,
            TransactionCompletion transactions,
            BackendOutage outage)
            throws Exception {
        ReturnKind kind = declaration.returnKind();
        if (kind == ReturnKind.ADAPTED) {
            AsyncType type = Objects.requireNonNull(runtimes.asyncType(declaration.returnType()), "adapter");
            Executor resume = runtimes.resumeExecutor();
            return type.defer(() -> new AdaptedCall(this, factory, args, proceed, outage, resume));
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
            return new AsyncInvocation(this, factory, name, proceed, outage).start(runtimes.resumeExecutor());
        }
        if (handle == null) {
            handle = transactions.heldUntilCompletion(factory, name);
        }
        long acquiredAt = 0; // when this call took the lock itself, for holdAtLeast
        if (handle != null) {
            handle.acquireAgain();
        } else {
            // A synchronous method here: an asynchronous one not joining a hold went to AsyncInvocation.
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
            Optional<LockHandle> acquired = acquire(factory, name, outage);
            if (acquired.isEmpty()) {
                return skipped(kind);
            }
            handle = acquired.get();
            acquiredAt = System.nanoTime();
        }
        return runHeld(factory, name, handle, acquiredAt, proceed, transactions);
    }

    /** Runs a synchronous method (or the call of an asynchronous one that joined a hold) under {@code handle}. */
    @SuppressWarnings("FutureReturnValueIgnored") // an asynchronous method's future goes back to its caller
    private @Nullable Object runHeld(
            DistributedLockFactory factory,
            String name,
            LockHandle handle,
            long acquiredAt,
            Proceed proceed,
            TransactionCompletion transactions)
            throws Exception {
        ReturnKind kind = declaration.returnKind();
        Runnable release = () -> release(handle, acquiredAt);
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
            return AsyncInvocation.releaseOnCompletion((CompletionStage<?>) result, release);
        }
        if (kind.async() || !transactions.releaseAtCompletion(factory, name, handle, release)) {
            release.run();
        }
        return result;
    }

    /** Starts waiting for the lock: busy yields an empty result when the method skips, else waits. */
    @SuppressWarnings("FutureReturnValueIgnored") // dependents that only pass a cancellation on
    CompletableFuture<Optional<LockHandle>> startAcquisition(DistributedLockFactory factory, String name) {
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
     * Tells {@code outage} how an acquisition of {@code name} that began at {@code began} ended:
     * {@code failure} null when the backend answered (granted or busy). Returns true when the call
     * is to be skipped instead of failing: {@link WhenBusy#SKIP} and the backend unavailable.
     */
    boolean skipsAfter(BackendOutage outage, long began, String name, @Nullable Throwable failure) {
        if (failure instanceof BackendUnavailableException unavailable) {
            boolean skip = declaration.whenBusy() == WhenBusy.SKIP;
            outage.failed(began, declaration.describe(), name, unavailable, skip);
            return skip;
        }
        if (failure == null || failure instanceof LockNotAcquiredException) {
            outage.succeeded(); // the backend answered
        }
        return false;
    }

    /** The failure a stage completed with, without the CompletionException around it. */
    static @Nullable Throwable unwrap(@Nullable Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    ReturnKind returnKind() {
        return declaration.returnKind();
    }

    /** The method, for messages. */
    String describe() {
        return declaration.describe();
    }

    /** Releases {@code hold}, or leaves it to lapse once {@code holdAtLeast} has passed since {@code acquiredAt}. */
    void release(LockHandle hold, long acquiredAt) {
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

    private Optional<LockHandle> acquire(DistributedLockFactory factory, String name, BackendOutage outage)
            throws InterruptedException {
        long began = BackendOutage.attemptBegins();
        Optional<LockHandle> acquired;
        try {
            if (declaration.whenBusy() == WhenBusy.SKIP) {
                acquired = factory.tryAcquire(name, declaration.options());
            } else {
                acquired = Optional.of(factory.acquire(name, declaration.options()));
            }
        } catch (InterruptedException e) {
            if (declaresInterruption && !declaration.returnKind().async()) {
                throw e;
            }
            Thread.currentThread().interrupt();
            throw new LockException(
                    name, "interrupted while waiting for the lock of @Locked " + declaration.describe(), e);
        } catch (RuntimeException e) {
            if (skipsAfter(outage, began, name, e)) {
                return Optional.empty();
            }
            throw e;
        }
        skipsAfter(outage, began, name, null);
        return acquired;
    }

    /** What the stage of an asynchronous method that was skipped completes with. */
    static @Nullable Object skippedValue(ReturnKind kind) {
        return kind == ReturnKind.STAGE_OF_OPTIONAL || kind == ReturnKind.FUTURE_OF_OPTIONAL ? Optional.empty() : null;
    }

    /** What a skipped synchronous call returns (an asynchronous one completes its stage with {@link #skippedValue}). */
    private static @Nullable Object skipped(ReturnKind kind) {
        return kind == ReturnKind.OPTIONAL ? Optional.empty() : null;
    }

    @Override
    public String toString() {
        return "LockedMethod[" + declaration.describe() + ", options=" + declaration.options() + ", whenBusy="
                + declaration.whenBusy() + "]";
    }
}
