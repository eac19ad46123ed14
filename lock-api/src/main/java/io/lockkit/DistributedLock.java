package io.lockkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/**
 * A named lock shared across threads, processes and machines, owned by the calling thread and
 * reentrant like {@link java.util.concurrent.locks.ReentrantLock}.
 *
 * <p>Without a lease the watchdog keeps the hold until {@link #unlock()}; with one it lapses when
 * the lease ends. A hold that lapses or that the backend loses is reported: {@link #unlock()}
 * then throws {@link LockLostException}. Instances are thread-safe and cheap; any number may
 * exist for one name. Backend failures surface as {@link BackendUnavailableException}.
 */
public interface DistributedLock extends Lock {

    /** The lock's name. */
    String name();

    /** Waits as long as it takes; an interrupt does not stop the wait but stays set. */
    @Override
    void lock();

    /** Like {@link #lock()}, with a fixed lease instead of the watchdog. */
    void lock(Duration lease);

    @Override
    void lockInterruptibly() throws InterruptedException;

    /** Takes the lock only if it is free now. */
    @Override
    boolean tryLock();

    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * Waits at most {@code wait} for the lock, then holds it for {@code lease}, or under the
     * watchdog when {@code lease} is null.
     */
    boolean tryLock(Duration wait, @Nullable Duration lease) throws InterruptedException;

    /**
     * Releases one hold of the calling thread.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws LockLostException when the hold was lost before this call
     */
    @Override
    void unlock();

    /** Whether anyone holds the lock now; asks the backend. */
    boolean isLocked();

    /** Whether the calling thread holds the lock and the hold has not been lost. */
    boolean isHeldByCurrentThread();

    /** The calling thread's hold count, 0 when it does not hold the lock (or the hold was lost). */
    int getHoldCount();

    /**
     * The time left on the calling thread's lease as this client knows it.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     */
    Duration remainingLease();

    /**
     * The fencing token of the calling thread's hold: strictly greater than that of every earlier
     * hold of this name, unchanged by reentrant locking.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws UnsupportedOperationException when the backend has no fencing tokens
     */
    long fencingToken();

    /**
     * Frees the lock whoever holds it, for operators; the former holder learns of the loss.
     *
     * @return whether it was held
     */
    boolean forceUnlock();

    /** Not supported: a distributed lock has no conditions. */
    @Override
    default Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks do not support conditions");
    }
}
