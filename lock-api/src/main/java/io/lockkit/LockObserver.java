package io.lockkit;

import org.jspecify.annotations.Nullable;

/**
 * Told what a {@link DistributedLockFactory} does with its locks, for metrics, logs and tracing;
 * registered with {@link DistributedLockFactory.Builder#observer(LockObserver)}. Every method does
 * nothing by default, so an observer overrides only what it needs.
 *
 * <p>Threading: methods are called synchronously, on the thread that made the lock call
 * (acquisition, release, extension) or on the factory's scheduler thread (renewals, losses found
 * by the watchdog), possibly on many threads at once. They must be thread-safe, fast and must not
 * block or call back into the factory: a slow observer slows the lock call that reports to it.
 *
 * <p>Failure: an exception thrown by an observer is logged (once per observer and method, through
 * {@link System.Logger}) and otherwise ignored: it never fails a lock call or changes its outcome.
 *
 * <p>Arguments are plain values (times in nanoseconds of the factory's {@link Ticker}) so that
 * reporting allocates nothing; with no observer registered nothing is called at all.
 */
public interface LockObserver {

    /** Why an acquisition ended without the lock. */
    enum Outcome {
        /** The lock was busy and the caller did not wait ({@code tryLock()}, a zero wait). */
        BUSY,
        /** The wait ran out while the lock stayed busy. */
        TIMED_OUT,
        /** The waiting thread was interrupted. */
        INTERRUPTED
    }

    /**
     * What a hold is, by the primitive that takes it (a small, fixed set: fit for a metric tag). A
     * read/write lock's write lock and a multi-lock's members are {@link #EXCLUSIVE}, as a lock is.
     */
    enum HoldKind {
        /** One holder at a time: a lock, a write lock, a multi-lock's member. */
        EXCLUSIVE,
        /** One holder at a time, served in arrival order: a fair lock. */
        FAIR,
        /** A read lock, held beside other readers. */
        READ,
        /** Permits of a semaphore (fair or not), held beside other holders' within its capacity. */
        PERMITS
    }

    /** Why a hold ended without its owner releasing it (a small, fixed set: fit for a metric tag). */
    enum LossCause {
        /** The lease ran out on this client's clock before it could be renewed or extended. */
        LEASE_EXPIRED,
        /** The backend no longer had the hold (a renewal, release or reacquisition found it gone). */
        NOT_HELD,
        /** Someone force-released the lock. */
        FORCE_RELEASED,
        /** The factory was closed while the hold was held. */
        FACTORY_CLOSED
    }

    /**
     * The lock was acquired.
     *
     * @param name the lock name
     * @param waitedNanos how long the call took from its start to the grant
     * @param fencingToken the hold's fencing token (0 when the provider has no fencing tokens)
     * @param reentrant whether the owner already held it (its hold count went up)
     */
    default void acquired(String name, long waitedNanos, long fencingToken, boolean reentrant) {}

    /**
     * The lock was acquired, with what the hold is; by default {@link #acquired(String, long, long,
     * boolean)}. The factory calls this one: an observer that tells primitives apart overrides it.
     *
     * @param kind what the hold is
     * @param permits the permits it holds: a semaphore's, else 1
     */
    default void acquired(
            String name, HoldKind kind, int permits, long waitedNanos, long fencingToken, boolean reentrant) {
        acquired(name, waitedNanos, fencingToken, reentrant);
    }

    /**
     * An acquisition ended without the lock (an exception from the backend is reported through
     * {@link #backendUnavailable} instead, when it is a {@link BackendUnavailableException}).
     */
    default void notAcquired(String name, long waitedNanos, Outcome outcome) {}

    /**
     * An acquisition of a {@code kind} hold ended without it; by default {@link #notAcquired(String,
     * long, Outcome)}, which the factory calls through this one.
     */
    default void notAcquired(String name, HoldKind kind, long waitedNanos, Outcome outcome) {
        notAcquired(name, waitedNanos, outcome);
    }

    /**
     * A hold ended by its owner's last release (or a deferred release took it over). Also when that
     * release failed (then {@link #backendUnavailable} or the caller's exception tells why): the hold
     * has ended on this client, and the backend's lease lapses by itself.
     *
     * @param heldNanos time from the request that won the lock to the release
     */
    default void released(String name, long fencingToken, long heldNanos) {}

    /**
     * A {@code kind} hold of {@code permits} ended by its owner's last release; by default {@link
     * #released(String, long, long)}, which the factory calls through this one.
     */
    default void released(String name, HoldKind kind, int permits, long fencingToken, long heldNanos) {
        released(name, fencingToken, heldNanos);
    }

    /** A hold was lost; {@code loss} is the exception its owner sees (also given to loss listeners). */
    default void lost(String name, long fencingToken, LossCause cause, LockLostException loss) {}

    /**
     * A {@code kind} hold of {@code permits} was lost; by default {@link #lost(String, long,
     * LossCause, LockLostException)}, which the factory calls through this one.
     */
    default void lost(
            String name, HoldKind kind, int permits, long fencingToken, LossCause cause, LockLostException loss) {
        lost(name, fencingToken, cause, loss);
    }

    /**
     * A watchdog renewal of {@code holds} leases failed; it is retried until their deadlines, after
     * which each is reported {@linkplain #lost lost}.
     */
    default void renewalFailed(int holds, RuntimeException failure) {}

    /**
     * The backend could not be reached or did not answer in time.
     *
     * @param name the lock the call was about, or null for a call about several (a renewal batch)
     */
    default void backendUnavailable(@Nullable String name, BackendUnavailableException failure) {}

    /**
     * A thread started or stopped waiting for a busy lock.
     *
     * <p>Calls of this method are made one at a time, in the order the count changed, so the last
     * count told is the current one (a gauge may simply keep it).
     *
     * @param name the lock the thread waits, or waited, for
     * @param waiting the number of threads of this factory now waiting, for any lock
     */
    default void waitingChanged(String name, int waiting) {}

    /**
     * This instance was elected leader of {@code name} by a {@link Leadership}: called once per
     * term, before the term's {@code onElected}, on the leadership's thread.
     *
     * @param term the term number (its fencing token)
     */
    default void elected(String name, long term) {}

    /**
     * A term of this instance's {@link Leadership} of {@code name} ended, before its
     * {@code onRevoked} is called, on the leadership's thread.
     *
     * @param term the term number (its fencing token)
     * @param reason why it ended
     * @param ledNanos time from the request that won the term to its revocation
     */
    default void revoked(String name, long term, Leadership.RevocationReason reason, long ledNanos) {}
}
