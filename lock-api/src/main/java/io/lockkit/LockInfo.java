package io.lockkit;

import java.time.Duration;

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
 */
public record LockInfo(
        String name, String owner, String clientId, int holdCount, long fencingToken, Duration leaseLeft, int waiters) {

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
