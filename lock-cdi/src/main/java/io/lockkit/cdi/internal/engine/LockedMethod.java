package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.lockkit.cdi.internal.engine.LockedDeclaration.ReturnKind;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
// - Acquisition failures of asynchronous methods come back as failed stages, where callers of such
//   methods look for failures; the wait itself still happens on the calling thread.
public final class LockedMethod {

    /** A holdAtLeast remainder shorter than this is not worth a deferred release: released at once. */
    private static final Duration MIN_DEFERRED_RELEASE = Duration.ofMillis(1);

    private final LockedDeclaration declaration;
    private final @Nullable String constantName;
    private final boolean declaresInterruption;

    private LockedMethod(LockedDeclaration declaration, boolean declaresInterruption) {
        this.declaration = declaration;
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
        if (handle == null && !kind.async()) {
            handle = transactions.heldUntilCompletion(factory, name);
        }
        long acquiredAt = 0; // when this call took the lock itself, for holdAtLeast
        if (handle != null) {
            handle.acquireAgain();
        } else {
            DistributedLock threadLock = kind.async() ? null : factory.getLock(name);
            if (threadLock != null && threadLock.isHeldByCurrentThread()) {
                return joinThreadHold(threadLock, proceed);
            }
            Optional<LockHandle> acquired;
            try {
                acquired = acquire(factory, name);
            } catch (LockException | IllegalArgumentException e) {
                if (kind.async()) {
                    return CompletableFuture.failedFuture(e);
                }
                throw e;
            }
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

    private static @Nullable Object skipped(ReturnKind kind) {
        return switch (kind) {
            case OPTIONAL -> Optional.empty();
            case STAGE, FUTURE -> CompletableFuture.completedFuture(null);
            case STAGE_OF_OPTIONAL, FUTURE_OF_OPTIONAL -> CompletableFuture.completedFuture(Optional.empty());
            default -> null;
        };
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the dependent that cancels the original needs no handle
    private static Object releaseOnCompletion(CompletionStage<?> stage, Runnable release) {
        CompletableFuture<Object> result = new CompletableFuture<>();
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

    @Override
    public String toString() {
        return "LockedMethod[" + declaration.describe() + ", options=" + declaration.options() + ", whenBusy="
                + declaration.whenBusy() + "]";
    }
}
