package io.lockkit.cdi.spi;

import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * A runtime's say in how {@code @Locked} methods run, registered as a {@link java.util.ServiceLoader}
 * service ({@code META-INF/services/io.lockkit.cdi.spi.LockedRuntime}) beside lock-cdi. Every method
 * has a default that keeps lock-cdi's own behaviour; implementations are called on the thread that
 * calls (or subscribes to) a {@code @Locked} method, so they must be thread-safe and fast.
 */
public interface LockedRuntime {

    /**
     * Whether the calling thread must not block (an event loop). A {@code @Locked} method that would
     * wait for its lock on such a thread fails at once with an {@link IllegalStateException}, before
     * any acquisition; asynchronous methods are not affected.
     */
    default boolean mustNotBlock() {
        return false;
    }

    /**
     * Where the body of an asynchronous {@code @Locked} method called on this thread runs once its
     * lock is granted (the caller's event-loop context, say), or null for lockkit's own thread that
     * completes the acquisition. Asked on the calling thread, once per call or subscription.
     */
    default @Nullable Executor resumeExecutor() {
        return null;
    }

    /** The asynchronous return types, besides {@code CompletionStage}, this runtime follows. */
    default List<AsyncType> asyncTypes() {
        return List.of();
    }
}
