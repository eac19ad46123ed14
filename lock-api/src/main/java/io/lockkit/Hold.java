package io.lockkit;

import io.lockkit.spi.Claim;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold of one lock as this client knows it: token, hold count, and the lease deadline
 * on the client's monotonic clock. The deadline is computed from the moment the request that set
 * the lease was sent, so it never ends later than the backend's own lease. A hold granted with a
 * first lease shorter than its lease (a grant heard from the backend, see {@link Grant}) has that
 * deadline until its first renewal, which comes a third of the way into it.
 */
final class Hold {

    enum State {
        HELD,
        RELEASED,
        LOST
    }

    final String name;
    final String owner;
    /** What this hold takes of its name: exclusive, or shared with a weight. */
    final Claim claim;

    final long token;
    /** When the request that won the hold was sent, on the factory's ticker (for hold times). */
    final long acquiredNanos;
    /** Older, lost hold of the same thread, still owed its unlocks. Only the owning thread touches it. */
    @Nullable
    Hold previous;

    private int count = 1;
    private State state = State.HELD;
    private boolean releasedByClose;
    private @Nullable LockLostException loss;
    private boolean lossThrown;

    private volatile boolean watchdog;
    private volatile Duration lease;
    private volatile long renewalIntervalNanos;
    private volatile long deadlineNanos;
    private volatile long nextRenewalNanos;

    final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
    /** Why the hold was lost, set before {@link #lost} completes (a leadership's revocation reason). */
    volatile LockObserver.@Nullable LossCause lossCause;

    Hold(
            String name,
            String owner,
            long token,
            Duration lease,
            boolean watchdog,
            Duration renewalInterval,
            long sentNanos,
            long firstLeaseNanos,
            Claim claim) {
        this.name = name;
        this.claim = claim;
        this.owner = owner;
        this.token = token;
        this.acquiredNanos = sentNanos;
        this.lease = lease;
        this.watchdog = watchdog;
        this.renewalIntervalNanos = renewalInterval.toNanos();
        // A first lease shorter than the lease (a grant heard from the backend) is renewed a third
        // of the way in, or at the usual interval if that comes first.
        boolean shortFirst = firstLeaseNanos > 0 && firstLeaseNanos < lease.toNanos();
        this.deadlineNanos = sentNanos + (shortFirst ? firstLeaseNanos : lease.toNanos());
        this.nextRenewalNanos =
                sentNanos + (shortFirst ? Math.min(renewalIntervalNanos, firstLeaseNanos / 3) : renewalIntervalNanos);
    }

    synchronized State state() {
        return state;
    }

    synchronized int count() {
        return count;
    }

    synchronized void increment() {
        count++;
    }

    /** Lowers the count; returns the count left. */
    synchronized int decrement() {
        return --count;
    }

    boolean watchdog() {
        return watchdog;
    }

    Duration lease() {
        return lease;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    long nextRenewalNanos() {
        return nextRenewalNanos;
    }

    long renewalIntervalNanos() {
        return renewalIntervalNanos;
    }

    /** When the watchdog must next look at this hold. */
    long nextDueNanos() {
        return watchdog ? Math.min(nextRenewalNanos, deadlineNanos) : deadlineNanos;
    }

    /** A renewal sent at {@code sentNanos} succeeded. */
    void renewed(long sentNanos) {
        long deadline = sentNanos + lease.toNanos();
        if (deadline - deadlineNanos > 0) {
            deadlineNanos = deadline;
        }
        nextRenewalNanos = sentNanos + renewalIntervalNanos;
    }

    /** A renewal failed; try again after {@code delayNanos}. */
    void renewalFailed(long nowNanos, long delayNanos) {
        nextRenewalNanos = nowNanos + delayNanos;
    }

    /** The lease was set to {@code newLease} by a request sent at {@code sentNanos}; the watchdog stops. */
    void extended(Duration newLease, long sentNanos) {
        this.watchdog = false;
        this.lease = newLease;
        this.deadlineNanos = sentNanos + newLease.toNanos();
    }

    boolean isValid(long nowNanos) {
        return state() == State.HELD && deadlineNanos - nowNanos > 0;
    }

    Duration remaining(long nowNanos) {
        return isValid(nowNanos) ? Duration.ofNanos(deadlineNanos - nowNanos) : Duration.ZERO;
    }

    /** HELD → LOST; returns the loss to report, or null if the hold was not held. */
    synchronized @Nullable LockLostException markLost(String reason) {
        if (state != State.HELD) {
            return null;
        }
        state = State.LOST;
        loss = new LockLostException(name, token, reason);
        return loss;
    }

    /** HELD → RELEASED. */
    synchronized boolean markReleased(boolean byClose) {
        if (state != State.HELD) {
            return false;
        }
        state = State.RELEASED;
        releasedByClose = byClose;
        count = 0;
        return true;
    }

    /**
     * The guard of a call that needs this hold held: throws the loss when it was lost, or an
     * {@link IllegalStateException} when it was released ({@code by} names who released it).
     */
    void requireHeld(String by) {
        State s = state();
        if (s == State.LOST) {
            throw lossToThrow();
        }
        if (s != State.HELD) {
            throw alreadyReleased(by);
        }
    }

    /** The exception for a hold used after {@code by} (the owner, the handle) released it. */
    IllegalStateException alreadyReleased(String by) {
        return new IllegalStateException("lock '" + LockException.abbreviate(name) + "' was already released by " + by);
    }

    synchronized boolean releasedByClose() {
        return releasedByClose;
    }

    /** The loss to throw for this hold, if it was lost; the first call marks it as reported. */
    synchronized @Nullable LockLostException lossToThrow() {
        if (loss != null) {
            lossThrown = true;
        }
        return loss;
    }

    /** Whether a loss happened that no caller has been told of by an exception yet. */
    synchronized boolean lossUnreported() {
        return loss != null && !lossThrown;
    }

    @Override
    public String toString() {
        return "Hold[" + name + ", " + owner + ", token " + token + ", " + state() + "]";
    }
}
