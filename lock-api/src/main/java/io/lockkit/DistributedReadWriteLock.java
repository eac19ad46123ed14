package io.lockkit;

import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A named read/write lock shared across threads, processes and machines: any number of readers,
 * or one writer, hold the name at once. Each of its two locks behaves as a {@link DistributedLock}
 * owned by the calling thread (reentrant, leased by the watchdog or explicitly, loss reported,
 * a fencing token per hold). Instances are thread-safe and cheap.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li><b>Exclusion</b>: while a write hold is valid, no other thread or process holds the name
 *       in either mode; read holds coexist with each other only.
 *   <li><b>Writer preference</b>: a writer that waits keeps new readers out (a thread that reads
 *       already may read again), so a stream of readers cannot starve a writer. A writer that
 *       stops waiting without saying so (a crashed process) keeps them out for a bounded time only:
 *       its place lapses after its retry interval plus a slack.
 *   <li><b>Downgrade</b>: a thread holding the write lock may take the read lock, then unlock the
 *       write lock, and keeps reading with no writer in between.
 *   <li><b>No upgrade</b>: a thread holding only the read lock that asks for the write lock gets
 *       {@link IllegalMonitorStateException} at once, never a deadlock (two readers upgrading would
 *       wait for each other forever). Unlock the read lock first.
 *   <li><b>Fencing</b>: every hold's token is larger than that of every earlier write hold of the
 *       name (and of every earlier hold, in the backends the project ships).
 * </ul>
 *
 * <p><b>Handles</b>: {@link #acquireRead} and {@link #acquireWrite} (and their {@code try} and
 * {@code Async} forms) take a hold owned by a {@link LockHandle} rather than by the thread, for
 * asynchronous code, as {@link DistributedLockFactory#acquire(String, LockOptions)} does for a lock.
 * Each handle is a holder of its own: a handle's write hold and a read hold of the same code exclude
 * each other like those of two processes (no downgrade between handles).
 *
 * <p>The write lock and {@link DistributedLockFactory#getLock(String)} of the same name are the
 * same exclusive hold. Needs a provider with shared holds
 * ({@link io.lockkit.spi.LockProvider.Capability#SHARED_HOLDS}); the read lock of one without them
 * throws {@link UnsupportedOperationException} naming the provider.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /** The name both locks hold. */
    String name();

    /** The shared lock: held by any number of threads at once while nobody writes. */
    @Override
    DistributedLock readLock();

    /** The exclusive lock: held by one thread while nobody reads. */
    @Override
    DistributedLock writeLock();

    /**
     * Takes a read hold for a new handle, waiting as {@code options} say.
     *
     * @throws LockNotAcquiredException when the wait ran out
     * @throws IllegalArgumentException when {@code options} is null
     */
    LockHandle acquireRead(LockOptions options) throws InterruptedException;

    /** Like {@link #acquireRead}, but empty when the wait ran out. */
    Optional<LockHandle> tryAcquireRead(LockOptions options) throws InterruptedException;

    /** {@link #acquireRead} without blocking: the stage fails with {@link LockNotAcquiredException} when the wait runs out. */
    CompletionStage<LockHandle> acquireReadAsync(LockOptions options);

    /** Takes the write hold for a new handle: {@link DistributedLockFactory#acquire(String, LockOptions)} of the name. */
    LockHandle acquireWrite(LockOptions options) throws InterruptedException;

    /** Like {@link #acquireWrite}, but empty when the wait ran out. */
    Optional<LockHandle> tryAcquireWrite(LockOptions options) throws InterruptedException;

    /** {@link #acquireWrite} without blocking: the stage fails with {@link LockNotAcquiredException} when the wait runs out. */
    CompletionStage<LockHandle> acquireWriteAsync(LockOptions options);
}
