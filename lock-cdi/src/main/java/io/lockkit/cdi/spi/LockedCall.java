package io.lockkit.cdi.spi;

import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * One lock acquisition of an asynchronous {@code @Locked} method, driven by an {@link AsyncType}:
 * {@link #acquire()}, then {@link #proceed()} when granted, then {@link #release()}. Thread-safe;
 * the three calls may come from different threads.
 */
public interface LockedCall {

    /**
     * Starts waiting for the lock without blocking. The stage completes with {@code true} when the
     * lock is granted, {@code false} when it is busy and the method's busy policy skips the call, or
     * exceptionally (a bad lock name, a {@code LockException}); it completes on the runtime's
     * {@linkplain LockedRuntime#resumeExecutor() resume executor} when it named one. Called once.
     */
    CompletionStage<Boolean> acquire();

    /**
     * Calls the method under the granted lock (nested {@code @Locked} calls on this thread join the
     * hold) and returns what it returned: a value of the {@link AsyncType}, or null.
     *
     * @throws Exception what the method threw
     */
    @Nullable
    Object proceed() throws Exception;

    /**
     * Releases the lock (after the method's {@code holdAtLeast}), or abandons the wait when it is
     * not granted yet; only the first call acts. A lock whose hold was lost is reported by a
     * {@code LockLostException}.
     */
    void release();
}
