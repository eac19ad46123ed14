package io.lockkit.cdi.internal.engine;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.cdi.DistributedBulkhead;
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
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@code @Locked} method under its lock; built once per method and binding, thread-safe.
 * This is the whole behaviour of {@code @Locked} and needs no CDI: the interceptor only finds the
 * factory and this object.
 */
// Design notes.
// - One strategy per return kind (LockedCalls), chosen once in the constructor: SynchronousCalls
//   (waits on the calling thread; JTA; the event-loop guard), StageCalls (CompletionStage and
//   CompletableFuture: a StageCall per call acquires without blocking and releases when the stage
//   completes) and AdaptedCalls (Uni, Multi: lazy, an AdaptedCall per subscription, so lock-cdi
//   knows nothing of their library). What they share lives here: the lock name, the acquisition's
//   start, the outage bookkeeping and the release.
// - Every hold is a LockHandle, not a thread-owned DistributedLock: an asynchronous method's lock is
//   released by whichever thread completes its stage, and a nested call joins the outer hold through
//   HeldLocks + acquireAgain(), which also works when the outer method is asynchronous. A
//   synchronous method called while its thread holds the lock through DistributedLock joins that
//   hold instead (an asynchronous one cannot: a thread's hold cannot be released by another thread).
// - Release after a normal return uses release(), which reports a lost hold (LockLostException):
//   a critical section that lost its lock must not look successful. After a failure, the loss is
//   added to the method's exception as suppressed.
// - An unavailable backend (BackendUnavailableException) skips a whenBusy = SKIP method as a busy
//   lock does: it never runs without its lock either way, and a scheduled job that threw on every
//   tick of an outage filled the log with the scheduler's stack traces. Every acquisition's outcome
//   goes to the application's BackendOutage, which logs an outage once, and once more when a call
//   takes (or finds busy) a lock again.
public final class LockedMethod {

    /** A holdAtLeast remainder shorter than this is not worth a deferred release: released at once. */
    private static final Duration MIN_DEFERRED_RELEASE = Duration.ofMillis(1);

    private final LockedDeclaration declaration;
    /** The annotation's simple name, for messages. */
    private final String binding;

    private final @Nullable String constantName;
    private final LockedCalls calls;

    private LockedMethod(LockedDeclaration declaration, boolean declaresInterruption, String binding) {
        this.declaration = declaration;
        this.binding = binding;
        List<Object> parts = declaration.nameParts();
        this.constantName = parts.stream().allMatch(String.class::isInstance)
                ? String.join("", parts.stream().map(String.class::cast).toList())
                : null;
        this.calls = calls(declaration, declaresInterruption, LockedRuntimes.installed());
    }

    /** The strategy for the method's return kind: the one place the kind is looked at. */
    private LockedCalls calls(LockedDeclaration declaration, boolean declaresInterruption, LockedRuntimes runtimes) {
        ReturnKind kind = declaration.returnKind();
        if (kind == ReturnKind.ADAPTED) {
            AsyncType type = Objects.requireNonNull(runtimes.asyncType(declaration.returnType()), "adapter");
            return new AdaptedCalls(this, type, runtimes);
        }
        if (kind.async()) {
            return new StageCalls(this, kind, runtimes);
        }
        return new SynchronousCalls(this, kind, runtimes, declaresInterruption);
    }

    /**
     * Checks {@code method}'s declaration against {@code binding}.
     *
     * @throws IllegalStateException naming the method when the declaration cannot work
     */
    public static LockedMethod of(Method method, Locked binding) {
        return of(method, LockedValues.of(binding));
    }

    /**
     * Checks {@code method}'s declaration against {@code binding}.
     *
     * @throws IllegalStateException naming the method when the declaration cannot work
     */
    public static LockedMethod of(Method method, DistributedBulkhead binding) {
        return of(method, LockedValues.of(binding));
    }

    private static LockedMethod of(Method method, LockedValues values) {
        try {
            LockedDeclaration declaration = LockedDeclaration.check(
                    new ReflectionSignature(method),
                    values,
                    defaultName(method.getDeclaringClass().getName(), method.getName()));
            boolean interruptible = false;
            for (Class<?> thrown : method.getExceptionTypes()) {
                interruptible |= thrown.isAssignableFrom(InterruptedException.class);
            }
            return new LockedMethod(declaration, interruptible, values.binding());
        } catch (DeclarationException e) {
            throw new IllegalStateException(message(values, ReflectionSignature.describe(method), e), e);
        }
    }

    public static String defaultName(String className, String methodName) {
        return className + "." + methodName;
    }

    /** The message of a declaration error: the binding, the method, what is wrong. */
    public static String message(LockedValues values, String method, DeclarationException e) {
        return "@" + values.binding() + " on " + method + ": " + e.getMessage();
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
            throw new IllegalArgumentException("@" + binding + " on " + declaration.describe() + ": " + bound.text()
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
    public @Nullable Object invoke(
            DistributedLockFactory factory,
            Object[] args,
            Proceed proceed,
            TransactionCompletion transactions,
            BackendOutage outage)
            throws Exception {
        return calls.invoke(factory, args, proceed, transactions, outage);
    }

    /** Runs {@code proceed}; when it throws, runs {@code release} (its failure added as suppressed) and throws again. */
    static @Nullable Object proceedOrRelease(Proceed proceed, Runnable release) throws Exception {
        try {
            return proceed.proceed();
        } catch (Throwable failure) {
            try {
                release.run();
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
    }

    /** Starts waiting for the lock: busy yields an empty result when the method skips, else waits. */
    @SuppressWarnings("FutureReturnValueIgnored") // dependents that only pass a cancellation on
    CompletableFuture<Optional<LockHandle>> startAcquisition(DistributedLockFactory factory, String name) {
        HoldKind kind = declaration.holdKind();
        boolean skip = declaration.whenBusy() == WhenBusy.SKIP;
        if (skip && kind instanceof HoldKind.Exclusive exclusive) {
            return exclusive.tryAcquireAsync(factory, name, declaration.options());
        }
        CompletableFuture<LockHandle> acquiring = kind.acquireAsync(factory, name, declaration.options());
        CompletableFuture<Optional<LockHandle>> acquired =
                skip ? acquiring.handle(LockedMethod::busyAsEmpty) : acquiring.thenApply(Optional::of);
        // Cancelling the dependent does not reach the acquisition: pass it on, so the wait is abandoned,
        // and release a grant that came before the cancellation reached it.
        acquired.whenComplete((held, failure) -> {
            if (acquired.isCancelled() && !acquiring.cancel(false)) {
                acquiring.thenAccept(LockHandle::release);
            }
        });
        return acquired;
    }

    /** A skipping call's outcome: the handle, empty when the wait ran out, else the failure again. */
    private static Optional<LockHandle> busyAsEmpty(@Nullable LockHandle handle, @Nullable Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause == null) {
            return Optional.of(Objects.requireNonNull(handle, "handle"));
        }
        if (cause instanceof LockNotAcquiredException) {
            return Optional.empty();
        }
        throw cause instanceof RuntimeException r ? r : new CompletionException(cause);
    }

    /** What a call holds of its name. */
    HoldKind holdKind() {
        return declaration.holdKind();
    }

    /**
     * Runs {@code proceed} as this thread's hold of {@code name} ({@link HeldLocks}, for nested
     * calls); when it throws, runs {@code releaseOnFailure} (whose own failure is added as
     * suppressed) and throws again.
     */
    static @Nullable Object proceedHolding(
            DistributedLockFactory factory,
            String name,
            HeldLocks.Hold hold,
            Proceed proceed,
            Runnable releaseOnFailure)
            throws Exception {
        HeldLocks.push(factory, name, hold);
        Object result = proceedOrRelease(proceed, () -> {
            HeldLocks.pop();
            releaseOnFailure.run();
        });
        HeldLocks.pop();
        return result;
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

    /** What the method does when the lock is busy. */
    WhenBusy whenBusy() {
        return declaration.whenBusy();
    }

    /** The method, for messages. */
    String describe() {
        return declaration.describe();
    }

    /** The annotation and the method, for messages: {@code @Locked on com.acme.Shop.ship(long)}. */
    String describeBinding() {
        return "@" + binding + " on " + declaration.describe();
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

    @Override
    public String toString() {
        return "LockedMethod[" + declaration.describe() + ", options=" + declaration.options() + ", whenBusy="
                + declaration.whenBusy() + "]";
    }
}
