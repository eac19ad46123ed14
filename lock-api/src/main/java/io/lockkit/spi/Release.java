package io.lockkit.spi;

import org.jspecify.annotations.Nullable;

/**
 * The answer to a release: whether the owner held the lock, whether the lock is now free of it,
 * and the waiting owner the backend handed it to, if any.
 *
 * <p>A hand-over comes in two kinds. Usually the grantee must still claim the lock with an attempt
 * of its own ({@code grantToken} 0), so a grantee that is gone costs only the backend's claim
 * timeout. A backend may instead grant the lock outright to a waiter of the releasing client (the
 * caller's own process, which is alive and wakes the waiter itself): the grantee then holds it
 * already, with the lease of its own request, and the caller passes {@code grantToken} to the wait
 * {@code grantWaitId}, saving the grantee a round trip. Such a grant is tied to that wait: if the
 * wait has ended, its {@link LockProvider#abandon abandon} gives the lock back. The caller passes a
 * grant on whatever else happens to the releasing hold (a release of a hold the caller already
 * counts as lost, a release on close); a backend whose release is retried after a lost reply
 * answers the retry with the same grant where it can.
 *
 * <p>Invariants, checked by the canonical constructor (an {@link IllegalArgumentException} names
 * the argument that breaks one): {@code outcome} is not null; a {@code grantee} is an owner id
 * (not empty) and comes only with {@link Outcome#RELEASED}, since only a freed lock can be handed
 * over; {@code grantToken} and {@code grantWaitId} are both 0 (no direct grant) or both positive,
 * and then a {@code grantee} is named.
 *
 * @param outcome what happened to the owner's hold
 * @param grantee the owner the lock was handed to, or {@code null}
 * @param grantToken the grantee's fencing token when the lock was granted to it outright, else 0
 * @param grantWaitId the {@link LockProvider.LockRequest#waitId() wait} granted outright, else 0
 */
public record Release(Outcome outcome, @Nullable String grantee, long grantToken, long grantWaitId) {

    public static final Release RELEASED = new Release(Outcome.RELEASED, null);
    public static final Release STILL_HELD = new Release(Outcome.STILL_HELD, null);
    public static final Release NOT_HELD = new Release(Outcome.NOT_HELD, null);

    /** @throws IllegalArgumentException when the arguments break an invariant (see the class comment) */
    public Release {
        if (outcome == null) {
            throw new IllegalArgumentException("outcome must not be null");
        }
        if (grantee != null && grantee.isEmpty()) {
            throw new IllegalArgumentException("grantee must be an owner id or null, was empty");
        }
        if (grantee != null && outcome != Outcome.RELEASED) {
            throw new IllegalArgumentException(
                    "grantee must be null unless the outcome is RELEASED (only a freed lock is handed over);" + " was '"
                            + grantee + "' with " + outcome);
        }
        if (grantToken < 0) {
            throw new IllegalArgumentException("grantToken must not be negative, was " + grantToken);
        }
        if (grantWaitId < 0) {
            throw new IllegalArgumentException("grantWaitId must not be negative, was " + grantWaitId);
        }
        if ((grantToken > 0) != (grantWaitId > 0)) {
            throw new IllegalArgumentException(
                    "grantToken and grantWaitId must be both positive (a direct grant) or both 0;" + " were "
                            + grantToken + " and " + grantWaitId);
        }
        if (grantToken > 0 && grantee == null) {
            throw new IllegalArgumentException("grantee must be named for a direct grant (grantToken " + grantToken
                    + ", grantWaitId " + grantWaitId + ")");
        }
    }

    /**
     * A release that handed nothing over ({@code grantee} null) or a hand-over the grantee claims.
     *
     * @throws IllegalArgumentException when {@code outcome} is null, or a {@code grantee} is empty
     *     or comes with another outcome than {@link Outcome#RELEASED}
     */
    public Release(Outcome outcome, @Nullable String grantee) {
        this(outcome, grantee, 0, 0);
    }

    /**
     * The lock went to {@code grantee}'s wait {@code waitId} outright, with {@code token}.
     *
     * @throws IllegalArgumentException when {@code grantee} is null or empty, or {@code token} or
     *     {@code waitId} is not positive
     */
    public static Release grantedTo(String grantee, long token, long waitId) {
        if (grantee == null) {
            throw new IllegalArgumentException("grantee of a direct grant must not be null");
        }
        if (token <= 0) {
            throw new IllegalArgumentException("token of a direct grant must be positive, was " + token);
        }
        if (waitId <= 0) {
            throw new IllegalArgumentException("waitId of a direct grant must be positive, was " + waitId);
        }
        return new Release(Outcome.RELEASED, grantee, token, waitId);
    }

    /** Whether the grantee holds the lock already (else it must claim it). */
    public boolean granted() {
        return grantToken > 0;
    }

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
