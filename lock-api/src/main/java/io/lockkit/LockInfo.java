package io.lockkit;

import java.time.Duration;
import java.util.List;

/**
 * What the backend says about a held lock, for operators: {@link LockOperations#inspect}
 * and {@link LockOperations#locks}. A snapshot taken in one read; by the time it is looked
 * at the lock may have changed hands. Immutable and thread-safe.
 *
 * @param name the lock's name
 * @param owner the holder's owner id as the backend stores it: {@code <client id>:<owner within the
 *        client>}, where the owner within the client is {@code t<thread id>} for a
 *        {@link DistributedLock} held by a thread and {@code h<sequence>} for a {@link LockHandle}
 * @param clientId the client part of {@code owner} (the text before its first {@code ':'}; all of
 *        {@code owner} when it has none): the {@link DistributedLockFactory#clientId()} of the
 *        holder's factory, by default {@code <host>/<pid>/<suffix>}, so holds of one factory (one
 *        process, as a rule) share it and it names the machine and process that hold the lock
 * @param holdCount how many times the holder took the lock without releasing it; 0 when the
 *        backend handed the lock to a waiter that has not claimed it yet (it lapses after the
 *        backend's claim timeout if the waiter never does)
 * @param fencingToken the holder's fencing token; 0 when the backend has no fencing tokens
 * @param leaseLeft the time left on the lease as the backend counts it, zero or more
 * @param waiters how many owners wait in the backend's queue for this lock; -1 when the backend
 *        cannot tell (it keeps no queue)
 * @param holders every holder of the name: one exclusive holder ({@code owner}), or the shared
 *        holders of a read lock or a semaphore, each with its permits
 * @param capacity the capacity stored with the name (a semaphore's permits), -1 when none is
 */
public record LockInfo(
        String name,
        String owner,
        String clientId,
        int holdCount,
        long fencingToken,
        Duration leaseLeft,
        int waiters,
        List<Holder> holders,
        int capacity) {

    /**
     * One holder of a name.
     *
     * @param owner its owner id
     * @param shared whether it holds shared (a read lock, a semaphore's permits) or exclusively
     * @param permits the units of the capacity it takes: 1 for a reader or an exclusive holder
     * @param holdCount how many times it took the name without releasing it
     */
    public record Holder(String owner, boolean shared, int permits, int holdCount) {}

    /** An exclusive lock's info: its one holder. */
    public LockInfo(
            String name,
            String owner,
            String clientId,
            int holdCount,
            long fencingToken,
            Duration leaseLeft,
            int waiters) {
        this(
                name,
                owner,
                clientId,
                holdCount,
                fencingToken,
                leaseLeft,
                waiters,
                List.of(new Holder(owner, false, 1, holdCount)),
                -1);
    }

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the component when {@code name}, {@code owner},
     *         {@code clientId} or {@code leaseLeft} is null, {@code clientId} is not the client part
     *         of {@code owner}, {@code holdCount} or {@code fencingToken} or {@code leaseLeft} is
     *         negative, or {@code waiters} is below -1
     */
    public LockInfo {
        if (name == null) {
            throw new IllegalArgumentException("name must not be null");
        }
        if (owner == null) {
            throw new IllegalArgumentException("owner must not be null");
        }
        if (clientId == null) {
            throw new IllegalArgumentException("clientId must not be null");
        }
        if (!clientId.equals(clientIdOf(owner))) {
            throw new IllegalArgumentException(
                    "clientId must be the client part of owner '" + owner + "', was '" + clientId + "'");
        }
        if (holdCount < 0) {
            throw new IllegalArgumentException("holdCount must not be negative, was " + holdCount);
        }
        if (fencingToken < 0) {
            throw new IllegalArgumentException("fencingToken must not be negative, was " + fencingToken);
        }
        if (leaseLeft == null || leaseLeft.isNegative()) {
            throw new IllegalArgumentException("leaseLeft must be zero or positive, was " + leaseLeft);
        }
        if (waiters < -1) {
            throw new IllegalArgumentException("waiters must be -1 (unknown) or more, was " + waiters);
        }
        if (holders == null || holders.isEmpty()) {
            throw new IllegalArgumentException("holders must name at least the owner, was " + holders);
        }
        holders = List.copyOf(holders);
    }

    /** Whether the name is held shared (readers, a semaphore's permits) rather than exclusively. */
    public boolean shared() {
        return holders.stream().anyMatch(Holder::shared);
    }

    /** The permits of every shared holder, added up (readers count one each). */
    public int permitsHeld() {
        return holders.stream().filter(Holder::shared).mapToInt(Holder::permits).sum();
    }

    /**
     * The client part of an owner id: the text before its first {@code ':'}, or the whole id when
     * it has none.
     *
     * @throws IllegalArgumentException when {@code owner} is null
     */
    public static String clientIdOf(String owner) {
        if (owner == null) {
            throw new IllegalArgumentException("owner must not be null");
        }
        int colon = owner.indexOf(':');
        return colon < 0 ? owner : owner.substring(0, colon);
    }

    /** Whether the backend knows how many owners wait ({@link #waiters()} is not -1). */
    public boolean waitersKnown() {
        return waiters >= 0;
    }
}
