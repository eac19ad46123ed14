package io.lockkit;

import org.jspecify.annotations.Nullable;

/**
 * Work to run while holding a lock, like {@link java.util.concurrent.Callable} but letting the
 * caller's own checked exception type through.
 *
 * @param <T> the result type
 * @param <X> the exception the work may throw
 */
@FunctionalInterface
public interface LockedCallable<T extends @Nullable Object, X extends Throwable> {
    T call() throws X;
}
