/**
 * Spring Integration's lock registry over lockkit: {@link io.lockkit.spring.integration.LockkitLockRegistry},
 * a {@code RenewableLockRegistry<LockkitLock>} that takes a {@link io.lockkit.DistributedLockFactory}.
 * Spring Integration 7 (provided: the application brings it).
 *
 * <h2>How Spring's thread-bound {@code Lock} maps onto lockkit's</h2>
 *
 * <ul>
 *   <li><b>Keys.</b> {@code obtain(key)} takes a {@code String}, as Spring's Redis and JDBC
 *       registries do; the lockkit lock name is the registry's prefix followed by the key. Any other
 *       key is an {@link java.lang.IllegalArgumentException}.
 *   <li><b>Ownership.</b> The owner is the thread, as in Spring's registries: each thread is its own
 *       owner, in this process and across processes alike (Spring's registries first serialize the
 *       threads of one process on a local {@code ReentrantLock}; lockkit's backend does it for all).
 *       Two {@code obtain} calls for one key give two views that share the thread's hold.
 *   <li><b>Reentrancy.</b> The holding thread may lock again; the lock is released when its hold count
 *       returns to zero. The fencing token is unchanged by reentrant locking.
 *   <li><b>Leases.</b> {@code lock()}, {@code tryLock(...)} and {@code lockInterruptibly()} hold the lock
 *       under lockkit's watchdog: renewed until {@code unlock()}, lapsing one watchdog lease (30 s by
 *       default) after the process dies. {@code lock(ttl)} and {@code tryLock(wait, ttl)} hold it for
 *       {@code ttl} without renewal, as Spring's {@code DistributedLock} means; {@code renewLock}
 *       lengthens such a lease. A {@code TaskScheduler} given for renewals is not needed and is ignored.
 *   <li><b>Waiting.</b> {@code tryLock(time, unit)} waits at most {@code time} and returns {@code false}
 *       then; waiters are woken by the backend's release notifications, not by polling, and
 *       {@code tryLock} and {@code lockInterruptibly} stop at an interrupt
 *       ({@link java.lang.InterruptedException}).
 *   <li><b>Unlock by a thread that does not hold the lock</b> throws
 *       {@link java.lang.IllegalMonitorStateException}, as {@code JdbcLockRegistry} and
 *       {@code ReentrantLock} do ({@code RedisLockRegistry} throws an {@code IllegalStateException}).
 *   <li><b>A lost lease.</b> When the hold lapses or the backend loses it, lockkit tells the holder:
 *       {@link io.lockkit.spring.integration.LockkitLock#isHeldByCurrentThread()} turns false at once,
 *       the factory's loss listener is called, and the next {@code unlock()} throws a
 *       {@link java.util.ConcurrentModificationException} (what Spring's registries throw for a lock
 *       that expired in the store) whose cause is lockkit's {@link io.lockkit.LockLostException}.
 *   <li><b>Fencing.</b> {@link io.lockkit.spring.integration.LockkitLock#fencingToken()} gives the
 *       calling thread's token: cast the lock {@code obtain} returns (it is a {@code LockkitLock}), or
 *       type the registry as {@code LockkitLockRegistry}. Protected resources refuse older tokens,
 *       which is what keeps them safe when a paused holder's lease has lapsed.
 *   <li><b>Conditions.</b> {@code newCondition()} throws {@link java.lang.UnsupportedOperationException},
 *       as Spring's distributed registries do.
 *   <li><b>Backend failures</b> are lockkit's {@link io.lockkit.BackendUnavailableException} within the
 *       provider's timeout (Spring's registries throw {@code CannotAcquireLockException}).
 * </ul>
 *
 * <p>{@code LockRegistryLeaderInitiator} runs on this registry unchanged: its leader holds the lock
 * under the watchdog and its heartbeat locks reentrantly; when its initiator stops, the unlock wakes
 * the other candidates at once. For leadership with a term number and a warning before the lease
 * ends, lockkit's own {@link io.lockkit.Leadership} does more.
 */
@NullMarked
package io.lockkit.spring.integration;

import org.jspecify.annotations.NullMarked;
