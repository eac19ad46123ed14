package io.lockkit;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * One hold of a lock, owned by this handle rather than by a thread: any thread may extend or
 * release it, which suits asynchronous code. Reentrant acquisitions through
 * {@link #acquireAgain()} count like a thread's nested holds. Thread-safe.
 */
public interface LockHandle extends AutoCloseable {

    /** The lock's name. */
    String name();

    /**
     * The fencing token of this hold.
     *
     * @throws UnsupportedOperationException when the backend has no fencing tokens
     */
    long fencingToken();

    /** Whether this handle still holds the lock: not released, not lost, lease not run out. */
    boolean isValid();

    /** The time left on the lease as this client knows it; zero once invalid. */
    Duration remainingLease();

    /** The handle's hold count: 1, plus one per {@link #acquireAgain()} not yet released. */
    int holdCount();

    /**
     * Takes the lock once more for the same owner (reentrant); pair it with a {@link #release()}.
     *
     * @throws LockLostException when the hold was lost
     * @throws IllegalStateException when the handle was fully released
     */
    void acquireAgain();

    /**
     * Sets the lease to {@code lease} from now (ending watchdog renewal if there was one).
     *
     * @throws LockLostException when the hold was lost
     * @throws IllegalStateException when the handle was released
     */
    void extend(Duration lease);

    /**
     * Releases one hold.
     *
     * @throws LockLostException when the hold was lost before this call
     * @throws IllegalStateException when the handle was already fully released
     */
    void release();

    /**
     * Releases this hold {@code delay} from now instead of at once, for work that must run at most
     * once per period however many instances schedule it (a job that finished early): the lease is
     * set to {@code delay} and no longer renewed, nobody can take the lock meanwhile, and the
     * backend lets it lapse then. The handle counts as released at once. With other holds of this
     * handle still open (reentrant), or a zero delay, it is {@link #release()}.
     *
     * @throws LockLostException when the hold was lost
     * @throws IllegalStateException when the handle was already fully released
     * @throws IllegalArgumentException when {@code delay} is null or negative
     * @throws UnsupportedOperationException when the provider has no explicit leases
     */
    void releaseAfter(Duration delay);

    /**
     * Completes with the loss when this hold is lost; never completes if it is released first.
     * Callbacks run on one of the client's scheduler threads and should be short.
     */
    CompletionStage<LockLostException> lost();

    /** Releases every hold of this handle that is still held; later calls do nothing. */
    @Override
    void close();
}
