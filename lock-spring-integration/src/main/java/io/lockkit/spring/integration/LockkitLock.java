package io.lockkit.spring.integration;

import io.lockkit.LockLostException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The Spring Integration lock {@link LockkitLockRegistry#obtain} hands out: a view of lockkit's
 * {@link io.lockkit.DistributedLock} of one name, owned by the thread that takes it and reentrant
 * (see the package documentation for the whole mapping). Thread-safe and cheap: any number may exist
 * for one key, and they share the calling thread's hold.
 *
 * <p>Failures: a busy lock is a {@code false} from {@code tryLock}; an unreachable backend is
 * lockkit's {@link io.lockkit.BackendUnavailableException} within the provider's timeout; bad
 * arguments an {@link IllegalArgumentException} naming them.
 */
public final class LockkitLock implements DistributedLock {

    private final io.lockkit.DistributedLock lock;

    LockkitLock(io.lockkit.DistributedLock lock) {
        this.lock = lock;
    }

    /** The lockkit lock name this lock maps to (the registry's prefix and the key). */
    public String name() {
        return lock.name();
    }

    /** The lockkit lock behind this view, for what Spring's interface lacks (inspection, force release). */
    public io.lockkit.DistributedLock distributedLock() {
        return lock;
    }

    /**
     * The fencing token of the calling thread's hold: strictly greater than that of every earlier
     * hold of this name, unchanged by reentrant locking. Pass it to the resource the lock protects.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws UnsupportedOperationException when the backend has no fencing tokens
     */
    public long fencingToken() {
        return lock.fencingToken();
    }

    /** Whether the calling thread holds the lock and the hold has not been lost. */
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /** The calling thread's hold count, 0 when it does not hold the lock or lost it. */
    public int getHoldCount() {
        return lock.getHoldCount();
    }

    /**
     * Waits as long as it takes, then holds the lock under lockkit's watchdog (renewed until
     * {@link #unlock()}, lapsing one watchdog lease after a crash); an interrupt does not stop the
     * wait but stays set.
     */
    @Override
    public void lock() {
        lock.lock();
    }

    /**
     * Waits as long as it takes, then holds the lock for {@code ttl} without renewal: it lapses
     * after {@code ttl} unless unlocked or renewed ({@link LockkitLockRegistry#renewLock(Object, Duration)}).
     * Taken again by its holder, the lease becomes the longer of the two.
     *
     * @throws IllegalArgumentException when {@code ttl} is null or shorter than a millisecond
     * @throws UnsupportedOperationException when the factory's provider has no explicit leases
     */
    @Override
    public void lock(Duration ttl) {
        lock.lock(checkTtl(ttl));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    /** Takes the lock (under the watchdog) only if it is free now or held by the calling thread. */
    @Override
    public boolean tryLock() {
        return lock.tryLock();
    }

    /** Waits at most {@code time} (zero or less: not at all), then holds the lock under the watchdog. */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(time, unit);
    }

    /**
     * Waits at most {@code waitTime}, then holds the lock for {@code ttl} without renewal.
     *
     * @throws IllegalArgumentException when {@code waitTime} is null or negative, or {@code ttl}
     *         null or shorter than a millisecond
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        return lock.tryLock(waitTime, checkTtl(ttl));
    }

    /**
     * Releases one hold of the calling thread.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock (as
     *         {@code JdbcLockRegistry} and {@link java.util.concurrent.locks.ReentrantLock} do)
     * @throws ConcurrentModificationException when the hold had been lost (its lease lapsed, or the
     *         backend lost it) before this call, as Spring's Redis and JDBC registries report a lock
     *         that expired in the store; the cause is lockkit's {@link LockLostException}, which
     *         says why. The hold is gone either way.
     */
    @Override
    public void unlock() {
        try {
            lock.unlock();
        } catch (LockLostException e) {
            // Spring's registries report a lock that expired in the store this way; the loss itself is the cause.
            throw new ConcurrentModificationException(
                    "the hold was lost before unlock; the integrity of the data it protected may have been"
                            + " compromised: " + e.getMessage(),
                    e);
        }
    }

    /** Not supported: a distributed lock has no conditions ({@link UnsupportedOperationException}). */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks do not support conditions");
    }

    @Override
    public String toString() {
        return "LockkitLock[" + lock + "]";
    }

    static Duration checkTtl(Duration ttl) {
        if (ttl == null) {
            throw new IllegalArgumentException("ttl must not be null");
        }
        if (ttl.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("ttl must be at least 1 ms; was " + ttl);
        }
        return ttl;
    }
}
