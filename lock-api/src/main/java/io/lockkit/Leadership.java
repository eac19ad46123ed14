package io.lockkit;

import java.time.Duration;
import java.util.Optional;

/**
 * One instance's campaign to lead {@code name} among every instance that campaigns for it over the
 * same backend: at most one of them leads at a time, and a leader that stops leading is told
 * before any other instance can lead. Made by {@link DistributedLockFactory#leadership}, it does
 * nothing until {@link #start()}; then it campaigns in the background, on a thread of its own,
 * until {@link #close()}. Thread-safe.
 *
 * <pre>{@code
 * try (Leadership leadership = locks.leadership("billing-scheduler", LeadershipOptions.builder()
 *         .onElected(term -> scheduler.resume(term.fencingToken()))
 *         .onRevoked((term, reason) -> scheduler.pause())
 *         .build()).start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p><b>Terms.</b> Each election is a {@link Term}: the leader's hold of the lock {@code name},
 * kept by the factory's watchdog, and its fencing token, which is the term number for the
 * resources the leader writes to. Every later term of the name, on any instance, has a larger
 * token.
 *
 * <p><b>The ordering guarantee.</b> A leader's term is revoked ({@link #isLeader()} false,
 * {@link Term#lost()} completed and the actions attached to it returned, then {@code onRevoked}
 * called, whatever ended the term) when its lease runs out on this instance's own monotonic clock,
 * {@linkplain LeadershipOptions#revocationMargin() a margin} before that lease ends, so that
 * {@code onRevoked} and {@code lost()} have completed by the time the lease ends. The lease runs
 * from the moment the request that set it was sent, so it never ends here later than on the
 * backend, which only then lets another instance be elected. A step down or a close calls
 * {@code onRevoked} before the lock is released. Assumptions, the same as for every lease of a
 * hold: the callbacks return well within the margin (hand long work to another thread and stop it
 * from {@code onRevoked}); this machine's clock does not run slower than the backend's by more than
 * what the margin leaves after them, as a share of the lease (the default margin, a tenth of the
 * lease, leaves several percent; monotonic clocks drift by parts per million); and the process is
 * not paused past the margin (a process stopped by the OS or by a long GC pause resumes with
 * {@link #isLeader()} already false, but is told late). A backend that loses the hold itself (a
 * restart without persistence, a deleted key or row, a force release) frees the lock at once, and
 * the leader is told at its next renewal ({@link RevocationReason#NOT_HELD}): such terms may
 * overlap, and the fencing token is what keeps the old leader's writes out.
 *
 * <p><b>Callbacks</b> ({@link LeadershipOptions.Builder#onElected onElected},
 * {@link LeadershipOptions.Builder#onRevoked onRevoked}) run on this leadership's own thread,
 * named {@code lockkit-leadership-<name>} unless the factory was given a thread factory, one at a
 * time and in term order: a term's {@code onRevoked} always follows its {@code onElected}. An
 * exception from {@code onElected} is logged and makes the instance step down (it cannot lead if
 * it could not start leading); one from {@code onRevoked} is logged. A term is announced only with
 * lease left: one won by an answer that came back after its lease (less the margin) ran out is
 * first confirmed by a renewal, as a lock acquisition confirms a hold won after its whole lease,
 * and is given back unannounced (neither callback runs for it) if the backend no longer has it or
 * the renewal too came back too late.
 *
 * <p><b>Outages.</b> While the backend is unreachable nobody new is elected, the leader's term ends
 * with its lease ({@link RevocationReason#LEASE_EXPIRED}), and the campaign retries with a capped
 * back-off ({@link LeadershipOptions#maxRetryDelay()}) until the backend answers again.
 */
public interface Leadership extends AutoCloseable {

    /** Why a term ended: a small, fixed set, fit for a metric tag. */
    enum RevocationReason {
        /** The lease ran out on this instance's clock (less the margin) before it could be renewed. */
        LEASE_EXPIRED,
        /** The backend no longer had the leader's hold (a renewal or release found it gone). */
        NOT_HELD,
        /** The lock was force-released through this instance's factory. */
        FORCE_RELEASED,
        /** {@link #stepDown()}, or {@code onElected} threw. */
        STEPPED_DOWN,
        /** {@link #close()}, or the factory was closed. */
        CLOSED
    }

    /** The name this leadership campaigns for (a lock name). */
    String name();

    /**
     * The lease in force for this leadership's terms: {@link LeadershipOptions#lease()} when it was
     * set, else the factory's default watchdog lease when the leadership was made (the options'
     * {@code lease()} is empty then). The revocation margin, renewal interval and rejoin delay left
     * to their defaults are shares of it.
     */
    Duration lease();

    /**
     * Starts campaigning in the background and returns this leadership; does nothing when it
     * already campaigns. While it sits out after a {@link #stepDown()}, it campaigns again at once.
     *
     * @throws IllegalStateException when it was closed
     */
    Leadership start();

    /** Whether this instance leads now: a term is current and its lease has not run out on this instance's clock. */
    boolean isLeader();

    /** The current term while this instance leads (as {@link #isLeader()}), else empty. */
    Optional<Term> currentTerm();

    /**
     * Waits until this instance leads, or {@code timeout} has passed.
     *
     * @return the current term, or empty when the time ran out or the leadership was closed
     * @throws IllegalArgumentException when {@code timeout} is null or negative
     * @throws IllegalStateException when it was never started
     * @throws InterruptedException when the waiting thread was interrupted
     */
    Optional<Term> awaitTerm(Duration timeout) throws InterruptedException;

    /**
     * Leaves the leadership so that another instance may lead: a current term is revoked
     * ({@link RevocationReason#STEPPED_DOWN}) and its lock released once {@code onRevoked} has
     * returned; a campaign in progress is given up, a lock it won meanwhile given back unannounced.
     * This instance then sits out for {@link LeadershipOptions#rejoinDelay()} before it campaigns
     * again ({@link #start()} ends the wait early). Returns once the lock is released, unless
     * called from a callback or from an action attached to {@link Term#lost()} (then the release
     * follows it). Does nothing when not started or closed.
     */
    void stepDown();

    /**
     * Steps down ({@link RevocationReason#CLOSED}) and stops campaigning for good; returns once the
     * lock is released and the thread has ended (when called from a callback or from an action
     * attached to {@link Term#lost()}: at once, and both follow it). Waits at most the lease for a
     * callback that does not return, then releases the lock anyway and logs it. Idempotent.
     */
    @Override
    void close();
}
