package io.lockkit.shedlock;

import io.lockkit.LockLostException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's {@link SimpleLock} over one lockkit hold. {@code unlock()} keeps the hold until
 * {@code lockAtLeastFor} has passed since it was taken (or extended), by lockkit's
 * {@link io.lockkit.LockHandle#releaseAfter}: the backend lets the lease lapse then, so no thread
 * of this process has to outlive the job. Usable once, as ShedLock's contract says: after
 * {@code unlock()} or {@code extend(…)} this object is spent. Thread-safe.
 */
final class HandleLock implements SimpleLock {

    private final CurrentShedLock.Entry entry;
    private final LockConfiguration configuration;
    private final long startNanos;
    private final AtomicBoolean spent = new AtomicBoolean();

    HandleLock(CurrentShedLock.Entry entry, LockConfiguration configuration, long startNanos) {
        this.entry = entry;
        this.configuration = configuration;
        this.startNanos = startNanos;
    }

    /**
     * Releases the lock now, or when {@code lockAtLeastFor} has passed since it was taken.
     *
     * @throws IllegalStateException when this lock was already unlocked or extended
     * @throws LockLostException when the hold was lost first: its {@code lockAtMostFor} ran out
     *         while the job ran, or the backend lost it, so another instance may have run the job
     *         meanwhile
     */
    @Override
    public void unlock() {
        spend();
        entry.end();
        Duration atLeastLeft = configuration.getLockAtLeastFor().minusNanos(System.nanoTime() - startNanos);
        if (atLeastLeft.compareTo(Duration.ofMillis(1)) >= 0) {
            entry.handle().releaseAfter(atLeastLeft);
        } else {
            entry.handle().release();
        }
    }

    /**
     * Sets the hold's lease to {@code lockAtMostFor} from now and counts {@code lockAtLeastFor} from
     * now, as a new lock that replaces this one.
     *
     * @return the new lock, or empty when the hold was lost (its lease ran out or the backend lost
     *         it): it cannot be extended then
     * @throws IllegalStateException when this lock was already unlocked or extended
     * @throws IllegalArgumentException when {@code lockAtLeastFor} is longer than
     *         {@code lockAtMostFor}, or {@code lockAtMostFor} is shorter than a millisecond
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        // ShedLock's own checks (nulls, lockAtLeastFor over lockAtMostFor), before this lock is spent
        LockConfiguration extended =
                new LockConfiguration(Instant.now(), configuration.getName(), lockAtMostFor, lockAtLeastFor);
        if (lockAtMostFor.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException(
                    "lockAtMostFor must be at least 1 ms for lockkit's lease; was " + lockAtMostFor);
        }
        spend();
        long now = System.nanoTime();
        try {
            entry.handle().extend(lockAtMostFor);
        } catch (LockLostException | IllegalStateException e) {
            entry.end();
            return Optional.empty();
        }
        return Optional.of(new HandleLock(entry, extended, now));
    }

    private void spend() {
        if (!spent.compareAndSet(false, true)) {
            throw new IllegalStateException(
                    "lock '" + configuration.getName() + "' is not valid: it has already been unlocked or extended");
        }
    }

    @Override
    public String toString() {
        return "HandleLock[" + configuration + "]";
    }
}
