/**
 * ShedLock over lockkit: {@link io.lockkit.shedlock.LockkitLockProvider}, a ShedLock
 * {@code ExtensibleLockProvider} that takes a {@link io.lockkit.DistributedLockFactory}, and
 * {@link io.lockkit.shedlock.CurrentShedLock}, which gives a running job its hold. ShedLock 7
 * (provided: the application brings it).
 *
 * <h2>How ShedLock's semantics map onto lockkit's</h2>
 *
 * ShedLock's lock is not a mutex held for the job's duration but a reservation between two bounds:
 *
 * <ul>
 *   <li><b>{@code lock(configuration)}</b> tries once, without waiting, as every ShedLock provider
 *       does: the lock when the name is free, empty when another instance (or another thread) holds
 *       it. The lockkit lock name is the provider's prefix followed by ShedLock's name.
 *   <li><b>{@code lockAtMostFor}</b> is the hold's lease, fixed and not renewed: the lock lapses that
 *       long after it was taken even if its holder hangs or dies, as ShedLock means. lockkit's
 *       watchdog is not used. It must be at least a millisecond.
 *   <li><b>{@code lockAtLeastFor}</b>: {@code SimpleLock.unlock()} before it has passed (a job that
 *       finished early) sets the lease to what is left of it and lets the backend end the hold then
 *       ({@link io.lockkit.LockHandle#releaseAfter}), so no other instance runs the job again within
 *       that time, and no thread waits for it; after it, unlock releases at once and wakes no one
 *       (ShedLock never waits).
 *   <li><b>{@code extend(lockAtMostFor, lockAtLeastFor)}</b> sets the lease to the new
 *       {@code lockAtMostFor} from now ({@link io.lockkit.LockHandle#extend}) and returns a new lock
 *       whose {@code lockAtLeastFor} counts from now; empty when the hold was lost. So ShedLock's
 *       {@code LockExtender} and {@code KeepAliveLockProvider} work.
 *   <li><b>Loss is reported.</b> A job that runs past {@code lockAtMostFor}, or whose hold the
 *       backend lost, gets lockkit's {@link io.lockkit.LockLostException} from {@code unlock()} (ShedLock
 *       then lets it propagate out of the job's invocation, where the scheduler logs it), and the
 *       factory's loss listener is called when the loss is seen: another instance may have run the job
 *       meanwhile, which ShedLock's own providers leave unsaid.
 *   <li><b>Fencing.</b> While the job runs, {@link io.lockkit.shedlock.CurrentShedLock#handle()} gives
 *       its hold on the job's thread; its {@code fencingToken()} is strictly greater than every earlier
 *       run's, so a resource can refuse a late write of a run whose lease lapsed. lock-cdi's
 *       {@code CurrentLock} is not used: that would make ShedLock users depend on CDI.
 *   <li><b>Failures.</b> An unreachable backend is lockkit's {@link io.lockkit.LockException}
 *       ({@link io.lockkit.BackendUnavailableException}) within the provider's timeout, thrown from
 *       {@code lock(…)}: ShedLock then does not run the job.
 * </ul>
 */
@NullMarked
package io.lockkit.shedlock;

import org.jspecify.annotations.NullMarked;
