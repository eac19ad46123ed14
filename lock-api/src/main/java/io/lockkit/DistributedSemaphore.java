package io.lockkit;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A named semaphore shared across processes and machines whose permits are leased: at most
 * {@link #capacity()} permits are held with valid leases at any instant, cluster-wide. Each
 * acquisition returns a {@link LockHandle} of its own — any thread may release it — with a
 * fencing token, its loss reported through {@link LockHandle#lost()}, and renewed by the
 * watchdog while this process lives (or leased explicitly). Instances are thread-safe and cheap.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li><b>Bounded</b>: the permits of every valid hold of the name add up to the capacity at most.
 *   <li><b>Permits per hold</b>: every acquisition is its own holder, however many one thread or
 *       process makes; a handle's {@link LockHandle#release()} gives back its own permits only, and
 *       the release of a hold whose lease lapsed frees nothing of anyone else's.
 *   <li><b>Crash-safe</b>: the permits of a process that died come back when their lease ends
 *       (the watchdog lease, 30 s by default), while other holders keep theirs.
 *   <li><b>Fairness</b>: {@link DistributedLockFactory#getFairSemaphore} serves waiters in arrival
 *       order, so a waiter for several permits is not starved by waiters for one; the default one
 *       lets an acquisition that fits take free permits at once.
 *   <li><b>Capacity</b>: stored with the name by the first acquisition and kept while the name has
 *       holders; an acquisition naming another capacity counts against the stored one. An operator
 *       changes it ({@code lockkit capacity}): holders over a reduced capacity keep their permits
 *       until they release or lapse, and no permit is granted until the held ones fit it.
 * </ul>
 *
 * <p>Needs a provider with shared holds
 * ({@link io.lockkit.spi.LockProvider.Capability#SHARED_HOLDS}), and the fair semaphore one with a
 * fair queue ({@code FAIR_QUEUE}): acquiring without them throws
 * {@link UnsupportedOperationException} naming the provider and the capability.
 */
public interface DistributedSemaphore {

    /** The semaphore's name. */
    String name();

    /** The capacity this semaphore was made with (the one stored with the name governs). */
    int capacity();

    /** Whether acquisitions queue in arrival order behind every live waiter. */
    boolean isFair();

    /**
     * Takes {@code permits} permits, waiting as {@code options} say.
     *
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the capacity (the
     *         stored one included), or {@code options} is null
     * @throws LockNotAcquiredException when the wait ran out
     */
    LockHandle acquire(int permits, LockOptions options) throws InterruptedException;

    /** Takes one permit, waiting as the factory's default options say. */
    LockHandle acquire() throws InterruptedException;

    /**
     * Like {@link #acquire(int, LockOptions)}, but empty when the permits were not free in time.
     *
     * @throws IllegalArgumentException as {@link #acquire(int, LockOptions)} does
     */
    Optional<LockHandle> tryAcquire(int permits, LockOptions options) throws InterruptedException;

    /** Takes one permit if one is free now. */
    Optional<LockHandle> tryAcquire();

    /**
     * {@link #acquire(int, LockOptions)} without blocking the calling thread; the stage fails with
     * {@link LockNotAcquiredException} when the wait runs out. Cancelling it gives back what it won.
     *
     * @throws IllegalArgumentException as {@link #acquire(int, LockOptions)} does, at the call
     */
    CompletionStage<LockHandle> acquireAsync(int permits, LockOptions options);

    /**
     * The permits not held now, cluster-wide, as the backend reports them (asks it): the stored
     * capacity less the permits of every valid hold, never below zero. While nobody holds any, the
     * backend reports no state for the name, and this is the capacity this object was made with
     * (which may differ from one an operator stored since).
     */
    int availablePermits();
}
