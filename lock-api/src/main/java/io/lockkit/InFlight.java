package io.lockkit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The waits in flight on one factory, from joining a room until they have left the backend's
 * queue; numbers them (see {@link io.lockkit.spi.LockProvider.LockRequest#waitId()}), and close()
 * awaits them (signalled by the last one to end, not polled). Thread-safe.
 */
final class InFlight {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition none = lock.newCondition();
    /** Numbers this client's waits. */
    private final AtomicLong waitSequence = new AtomicLong();

    private int count;

    /** A wait begins: counted until {@link #ended()}; returns its wait id, new on this client. */
    long began() {
        lock.lock();
        try {
            count++;
        } finally {
            lock.unlock();
        }
        return waitSequence.incrementAndGet();
    }

    void ended() {
        lock.lock();
        try {
            if (--count == 0) {
                none.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    int count() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code nanos} for no wait to be left, through interrupts (the caller's
     * interrupt status is kept).
     *
     * @return whether none is left
     */
    boolean awaitNone(long nanos) {
        return Conditions.awaitKeepingInterrupt(lock, none, () -> count <= 0, nanos);
    }
}
