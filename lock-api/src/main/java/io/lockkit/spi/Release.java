package io.lockkit.spi;

/**
 * The answer to a release: whether the owner held the lock, whether the lock is now free of it,
 * and the waiting owner the backend handed it to, if any.
 *
 * @param outcome what happened to the owner's hold
 * @param grantee the owner the lock was handed to, or {@code null}
 */
public record Release(Outcome outcome, String grantee) {

    public static final Release RELEASED = new Release(Outcome.RELEASED, null);
    public static final Release STILL_HELD = new Release(Outcome.STILL_HELD, null);
    public static final Release NOT_HELD = new Release(Outcome.NOT_HELD, null);

    /** What a release did. */
    public enum Outcome {
        /** The hold count reached zero; the owner no longer holds the lock. */
        RELEASED,
        /** A reentrant hold remains. */
        STILL_HELD,
        /** The owner did not hold the lock (its lease lapsed, or it never held it). */
        NOT_HELD
    }
}
