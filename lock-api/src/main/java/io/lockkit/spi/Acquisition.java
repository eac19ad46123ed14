package io.lockkit.spi;

import java.time.Duration;

/**
 * The answer to one acquisition attempt: granted with a fencing token, or busy with a hint of
 * when to try again (at the latest when the current lease runs out). Immutable.
 *
 * <p>Made with {@link #acquired(long)} or {@link #busy(Duration)}; the canonical constructor
 * checks the same invariants and throws {@link IllegalArgumentException} naming the argument that
 * breaks one.
 *
 * @param isAcquired whether the requesting owner now holds the lock
 * @param fencingToken the hold's fencing token when acquired (meaningful with
 *        {@link LockProvider.Capability#FENCING_TOKENS}); 0 when busy
 * @param retryAfter when busy, try again after this at the latest (never negative); zero when
 *        acquired
 */
public record Acquisition(boolean isAcquired, long fencingToken, Duration retryAfter) {

    /**
     * @throws IllegalArgumentException when {@code retryAfter} is null or negative, or not zero
     *     for an acquisition, or {@code fencingToken} is not 0 for a busy answer
     */
    public Acquisition {
        if (retryAfter == null) {
            throw new IllegalArgumentException("retryAfter must not be null");
        }
        if (isAcquired && !retryAfter.isZero()) {
            throw new IllegalArgumentException("retryAfter must be zero when the lock was acquired, was " + retryAfter);
        }
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
        }
        if (!isAcquired && fencingToken != 0) {
            throw new IllegalArgumentException("fencingToken must be 0 when the lock is busy, was " + fencingToken);
        }
    }

    /** The lock is held by the requesting owner. */
    public static Acquisition acquired(long fencingToken) {
        return new Acquisition(true, fencingToken, Duration.ZERO);
    }

    /**
     * Someone else holds it; try again after {@code retryAfter} at the latest (a negative hint,
     * a lease that ran out while it was computed, counts as zero).
     *
     * @throws IllegalArgumentException when {@code retryAfter} is null
     */
    public static Acquisition busy(Duration retryAfter) {
        if (retryAfter == null) {
            throw new IllegalArgumentException("retryAfter must not be null");
        }
        return new Acquisition(false, 0, retryAfter.isNegative() ? Duration.ZERO : retryAfter);
    }

    @Override
    public String toString() {
        return isAcquired
                ? "Acquisition[acquired, token=" + fencingToken + "]"
                : "Acquisition[busy, retryAfter=" + retryAfter + "]";
    }
}
