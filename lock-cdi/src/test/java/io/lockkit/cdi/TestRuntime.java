package io.lockkit.cdi;

import io.lockkit.cdi.spi.AsyncType;
import io.lockkit.cdi.spi.LockedCall;
import io.lockkit.cdi.spi.LockedRuntime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LockedRuntime} of lock-cdi's tests (registered for the whole test class path): inert
 * unless a test marks its thread non-blocking or names a resume executor; adapts {@link Deferred}.
 */
public final class TestRuntime implements LockedRuntime {

    // Maps by thread, not ThreadLocals: ThreadLocalTest checks that a @Locked call leaves none behind.
    private static final Set<Thread> NON_BLOCKING = ConcurrentHashMap.newKeySet();
    private static final Map<Thread, Executor> RESUME = new ConcurrentHashMap<>();

    /** Marks the calling thread as one that must not block, or not. */
    static void nonBlocking(boolean value) {
        if (value) {
            NON_BLOCKING.add(Thread.currentThread());
        } else {
            NON_BLOCKING.remove(Thread.currentThread());
        }
    }

    /** Makes asynchronous methods called on this thread resume on {@code executor} (null: lockkit's). */
    static void resumeOn(@Nullable Executor executor) {
        if (executor == null) {
            RESUME.remove(Thread.currentThread());
        } else {
            RESUME.put(Thread.currentThread(), executor);
        }
    }

    @Override
    public boolean mustNotBlock() {
        return NON_BLOCKING.contains(Thread.currentThread());
    }

    @Override
    public @Nullable Executor resumeExecutor() {
        return RESUME.get(Thread.currentThread());
    }

    @Override
    public List<AsyncType> asyncTypes() {
        return List.of(new DeferredType());
    }

    /** Start: acquire, call the method, start its Deferred, release at its end or on cancellation. */
    private static final class DeferredType implements AsyncType {
        @Override
        public String typeName() {
            return Deferred.class.getName();
        }

        @Override
        @SuppressWarnings("FutureReturnValueIgnored") // dependents that release and pass the outcome on
        public Object defer(Supplier<LockedCall> calls) {
            return Deferred.of(() -> {
                LockedCall call = calls.get();
                CompletableFuture<Object> result = new CompletableFuture<>();
                CompletableFuture<@Nullable CompletableFuture<?>> running = new CompletableFuture<>();
                result.whenComplete((value, failure) -> {
                    call.release(); // done, failed or cancelled: only the first release acts
                    if (result.isCancelled()) {
                        running.thenAccept(work -> {
                            if (work != null) {
                                work.cancel(false);
                            }
                        });
                    }
                });
                call.acquire().whenComplete((granted, failure) -> {
                    if (failure != null) {
                        running.complete(null);
                        result.completeExceptionally(failure);
                        return;
                    }
                    if (!granted || result.isDone()) {
                        running.complete(null);
                        result.complete(null);
                        return;
                    }
                    try {
                        Deferred<?> method = (Deferred<?>) call.proceed();
                        CompletableFuture<?> work =
                                method == null ? CompletableFuture.completedFuture(null) : method.start();
                        running.complete(work);
                        work.whenComplete((value, workFailure) -> {
                            if (workFailure != null) {
                                result.completeExceptionally(workFailure);
                            } else {
                                result.complete(value);
                            }
                        });
                    } catch (Exception e) {
                        running.complete(null);
                        result.completeExceptionally(e);
                    }
                });
                return result;
            });
        }
    }
}
