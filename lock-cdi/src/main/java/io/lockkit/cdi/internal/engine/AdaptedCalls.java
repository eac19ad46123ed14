package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.cdi.spi.AsyncType;
import java.util.concurrent.Executor;

/**
 * The calls of a {@code @Locked} method whose return type an installed runtime adapts ({@code Uni},
 * {@code Multi}): the call returns the adapter's lazy value, which acquires on each subscription
 * through an {@link AdaptedCall}. Thread-safe.
 */
// Design notes.
// - Nothing happens at the call itself: no lock name, no acquisition. The resume executor is read at
//   the call, as it names the calling thread's context (Quarkus' event loop). No JTA: the hold
//   follows the subscription, not the transaction.
final class AdaptedCalls implements LockedCalls {

    private final LockedMethod method;
    private final AsyncType type;
    private final LockedRuntimes runtimes;

    AdaptedCalls(LockedMethod method, AsyncType type, LockedRuntimes runtimes) {
        this.method = method;
        this.type = type;
        this.runtimes = runtimes;
    }

    @Override
    public Object invoke(
            DistributedLockFactory factory,
            Object[] args,
            LockedMethod.Proceed proceed,
            TransactionCompletion transactions,
            BackendOutage outage) {
        Executor resume = runtimes.resumeExecutor();
        return type.defer(() -> new AdaptedCall(method, factory, args, proceed, outage, resume));
    }
}
