package io.lockkit;

import io.lockkit.spi.Claim;

/**
 * Which of a thread's holds of a name a {@link ThreadOwnedLock} takes: the lock (also a read/write
 * lock's write lock), the fair lock, or the read lock. The read lock has an owner of its own
 * ({@code <client>:t<id>r}), so a thread's read and write holds of one name are two holders with
 * their own counts and leases (see ARCHITECTURE.md, "Primitives").
 */
enum ThreadSide {
    /** The lock, or a read/write lock's write lock: the whole name. */
    WRITE(Claim.EXCLUSIVE, ""),
    /** The fair lock: the whole name, in arrival order. */
    FAIR(Claim.EXCLUSIVE.fairly(), ""),
    /** A read/write lock's read lock: shared with other readers. */
    READ(Claim.shared(1, Claim.UNBOUNDED), "r");

    @SuppressWarnings("ImmutableEnumChecker") // a record of an enum, ints, a boolean and a String
    private final Claim claim;

    private final String ownerSuffix;

    ThreadSide(Claim claim, String ownerSuffix) {
        this.claim = claim;
        this.ownerSuffix = ownerSuffix;
    }

    /** What a hold of this side takes. */
    Claim claim() {
        return claim;
    }

    /** The owner of the calling thread's holds of this side. */
    String owner(Owners owners) {
        return ownerSuffix.isEmpty() ? owners.threadOwner() : owners.threadOwner() + ownerSuffix;
    }

    /** Whether this side shares the owner of the exclusive sides (so they are one holder). */
    boolean exclusive() {
        return claim.exclusive();
    }
}
