package io.lockkit.spi;

import org.jspecify.annotations.Nullable;

/**
 * What one hold takes of a name: the whole name ({@link Mode#EXCLUSIVE}, a lock or a write lock),
 * or {@code weight} units of the name's {@code capacity} beside other shared holds
 * ({@link Mode#SHARED}: a read lock takes 1 of an unbounded capacity, a semaphore's acquisition
 * of k permits takes k of N). Immutable.
 *
 * <p>A provider admits a claim by one rule (see the repository's ARCHITECTURE.md, "Primitives"):
 * an owner that already holds the name is admitted again (reentrant); an exclusive claim when no
 * other owner holds the name; a shared claim when no other owner holds it exclusively, the weights
 * held plus this one fit the capacity, and no live waiter queued before it blocks it (a waiting
 * exclusive claim blocks new readers; with {@link #fair()}, any earlier waiter does). A shared
 * claim {@link #beside()} an owner may stand beside that owner's exclusive hold (a writer taking
 * the read lock to downgrade). Providers that admit shared claims declare
 * {@link LockProvider.Capability#SHARED_HOLDS}, fair ones {@link LockProvider.Capability#FAIR_QUEUE};
 * the core never sends a claim a provider did not declare.
 *
 * @param mode exclusive or shared
 * @param weight the units this hold takes: 1 for an exclusive claim, at least 1 for a shared one
 * @param capacity the name's capacity a shared claim counts against: {@link #UNBOUNDED} or at
 *        least {@code weight}; 1 for an exclusive claim. A backend that stores a capacity with
 *        the name uses the stored one and takes this one only when it has none
 * @param fair whether the claim queues behind every live waiter that arrived before it
 * @param beside for a shared claim, the owner whose exclusive hold it may stand beside, else null
 */
public record Claim(
        Mode mode,
        int weight,
        int capacity,
        boolean fair,
        @Nullable String beside) {

    /** The capacity of a name whose shared holds are not counted (readers). */
    public static final int UNBOUNDED = 0;

    /** Today's lock: the whole name, not fair. */
    public static final Claim EXCLUSIVE = new Claim(Mode.EXCLUSIVE, 1, 1, false, null);

    /** Exclusive, or shared with other holds. */
    public enum Mode {
        EXCLUSIVE,
        SHARED
    }

    /**
     * @throws IllegalArgumentException naming the component that breaks a rule above
     */
    public Claim {
        if (mode == null) {
            throw new IllegalArgumentException("mode must not be null");
        }
        if (mode == Mode.EXCLUSIVE) {
            if (weight != 1 || capacity != 1) {
                throw new IllegalArgumentException("an exclusive claim has weight 1 and capacity 1, was weight "
                        + weight + ", capacity " + capacity);
            }
            if (beside != null) {
                throw new IllegalArgumentException("beside is for shared claims, was " + beside);
            }
        }
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be at least 1, was " + weight);
        }
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be 0 (unbounded) or positive, was " + capacity);
        }
        if (capacity != UNBOUNDED && weight > capacity) {
            throw new IllegalArgumentException("weight must not exceed capacity " + capacity + ", was " + weight);
        }
        if (beside != null && beside.isEmpty()) {
            throw new IllegalArgumentException("beside must be an owner id or null, was empty");
        }
    }

    /**
     * A shared claim of {@code weight} units of {@code capacity} ({@link #UNBOUNDED} for readers).
     *
     * @throws IllegalArgumentException when {@code weight} is below 1, {@code capacity} negative,
     *         or {@code weight} above a bounded {@code capacity}
     */
    public static Claim shared(int weight, int capacity) {
        return new Claim(Mode.SHARED, weight, capacity, false, null);
    }

    /** This claim, queued behind every live waiter that arrived before it. */
    public Claim fairly() {
        return new Claim(mode, weight, capacity, true, beside);
    }

    /**
     * This shared claim, admitted beside {@code exclusiveOwner}'s exclusive hold.
     *
     * @throws IllegalArgumentException when this claim is exclusive, or the owner is null or empty
     */
    public Claim beside(String exclusiveOwner) {
        if (exclusiveOwner == null) {
            throw new IllegalArgumentException("exclusiveOwner must not be null");
        }
        return new Claim(mode, weight, capacity, fair, exclusiveOwner);
    }

    /** Whether this claim takes the whole name. */
    public boolean exclusive() {
        return mode == Mode.EXCLUSIVE;
    }
}
