package io.lockkit;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/** The core's one timed wait on a condition that an interrupt does not cut short. */
final class Conditions {

    private Conditions() {}

    /**
     * Waits, holding {@code lock}, until {@code done} (read under the lock) or {@code nanos} have
     * passed. An interrupt does not end the wait; the caller's interrupt status is set again after it.
     *
     * @param changed a condition of {@code lock}, signalled when what {@code done} reads changes
     * @return whether {@code done} held
     */
    static boolean awaitKeepingInterrupt(ReentrantLock lock, Condition changed, BooleanSupplier done, long nanos) {
        long end = System.nanoTime() + nanos;
        boolean interrupted = false;
        lock.lock();
        try {
            while (!done.getAsBoolean()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
