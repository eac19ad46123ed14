package io.lockkit.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer to one acquisition attempt: granted with a fencing token, or busy with a hint of
 * when to try again (at the latest when the current lease runs out).
 */
public final class Acquisition {
    private final boolean acquired;
    private final long fencingToken;
    private final Duration retryAfter;

    private Acquisition(boolean acquired, long fencingToken, Duration retryAfter) {
        this.acquired = acquired;
        this.fencingToken = fencingToken;
        this.retryAfter = retryAfter;
    }

    /** The lock is held by the requesting owner. */
    public static Acquisition acquired(long fencingToken) {
        return new Acquisition(true, fencingToken, Duration.ZERO);
    }

    /** Someone else holds it; try again after {@code retryAfter} at the latest. */
    public static Acquisition busy(Duration retryAfter) {
        Objects.requireNonNull(retryAfter, "retryAfter");
        return new Acquisition(false, 0, retryAfter.isNegative() ? Duration.ZERO : retryAfter);
    }

    public boolean isAcquired() {
        return acquired;
    }

    public long fencingToken() {
        return fencingToken;
    }

    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public String toString() {
        return acquired ? "Acquisition[acquired, token=" + fencingToken + "]" : "Acquisition[busy, retryAfter=" + retryAfter + "]";
    }
}
