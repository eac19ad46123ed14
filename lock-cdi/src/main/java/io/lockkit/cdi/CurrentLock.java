package io.lockkit.cdi;

import io.lockkit.LockHandle;
import io.lockkit.cdi.internal.engine.HeldLocks;
import java.util.Optional;

/**
 * The hold a {@link Locked} method runs under, for code that needs its fencing token:
 *
 * <pre>{@code
 * @Locked("account:{id}")
 * void debit(long id, long cents) {
 *     ledger.write(id, cents, CurrentLock.handle().orElseThrow().fencingToken());
 * }
 * }</pre>
 */
public final class CurrentLock {

    private CurrentLock() {}

    /**
     * The hold of the innermost {@code @Locked} method running on the calling thread, or empty
     * outside one. Releasing it is the interceptor's job; extending it is allowed. A method that
     * joined a hold its thread took through {@link io.lockkit.DistributedLock} has no handle: ask
     * that lock instead.
     */
    public static Optional<LockHandle> handle() {
        return HeldLocks.innermost();
    }
}
