package io.lockkit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The holds of several locks taken together by {@link DistributedLockFactory#acquireAll}, owned by
 * this handle rather than by a thread: any thread may release them. Each member is an ordinary
 * {@link LockHandle} (its own fencing token, lease and renewal); this handle reports the loss of
 * any of them and releases them together. Thread-safe.
 */
public interface MultiLockHandle extends AutoCloseable {

    /** The names held, in the order they were taken (ascending, as {@link String#compareTo} sorts). */
    List<String> names();

    /** The members' handles, in the order of {@link #names()}. */
    List<LockHandle> members();

    /**
     * The fencing token of the member {@code name}: compare it where that resource is written, as
     * for a single lock.
     *
     * @throws IllegalArgumentException when {@code name} is not one of {@link #names()}
     * @throws UnsupportedOperationException when the backend has no fencing tokens
     */
    long fencingToken(String name);

    /** Whether every member is still held: none released, none lost, no lease run out. */
    boolean isValid();

    /** The shortest time left on a member's lease as this client knows it; zero once any is invalid. */
    Duration remainingLease();

    /**
     * Completes with the first loss of any member; never completes if all are released first. Once
     * it has, the work these locks protect is no longer protected: stop it, then {@link #close()}
     * this handle to release the other members. Callbacks run on one of the client's scheduler
     * threads and should be short.
     */
    CompletionStage<LockLostException> lost();

    /**
     * Releases every member, in the reverse of the order they were taken. Every member is released
     * even when one of them fails; then the first failure is thrown, the others added to it as
     * suppressed.
     *
     * @throws LockLostException when a member was lost before this call (the others are released)
     * @throws IllegalStateException when this handle was already released
     * @throws LockException when the backend did not answer a release
     */
    void release();

    /** Releases every member that is still held; later calls do nothing. */
    @Override
    void close();
}
