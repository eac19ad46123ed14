package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import org.jspecify.annotations.Nullable;

/**
 * How the calls of one {@code @Locked} method run under its lock, by the method's return kind:
 * {@link SynchronousCalls}, {@link StageCalls} ({@code CompletionStage}, {@code CompletableFuture}) or
 * {@link AdaptedCalls} (a type an installed runtime adapts, such as {@code Uni}). Chosen once, when
 * the {@link LockedMethod} is built; thread-safe.
 */
sealed interface LockedCalls permits SynchronousCalls, StageCalls, AdaptedCalls {

    /** As {@link LockedMethod#invoke}, for a method of this return kind. */
    @Nullable
    Object invoke(
            DistributedLockFactory factory,
            Object[] args,
            LockedMethod.Proceed proceed,
            TransactionCompletion transactions,
            BackendOutage outage)
            throws Exception;
}
