package io.lockkit;

import io.lockkit.Leadership.RevocationReason;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * One election won by a {@link Leadership}: the leader's hold of the lock and its fencing token,
 * which is the term number. Every later term of the same name, on any instance, has a larger
 * token, so a resource that keeps the largest token it has seen refuses a deposed leader's late
 * writes. Thread-safe.
 */
public final class Term {

    private final String name;
    private final long token;
    private final Hold hold;
    private final Ticker ticker;
    private final long marginNanos;
    private final Instant electedAt;
    private final CompletableFuture<RevocationReason> lost = new CompletableFuture<>();
    private volatile @Nullable RevocationReason revocation;
    private volatile long revokedAt;
    /**
     * Set once the lease was seen run out here: a term stays invalid even if a renewal sent after
     * that moment succeeds and moves the deadline (validity never comes back).
     */
    private volatile boolean expired;

    Term(String name, long token, Hold hold, Ticker ticker, long marginNanos, Instant electedAt) {
        this.name = name;
        this.token = token;
        this.hold = hold;
        this.ticker = ticker;
        this.marginNanos = marginNanos;
        this.electedAt = electedAt;
    }

    /** The leadership's name. */
    public String name() {
        return name;
    }

    /** The term number: the fencing token of the leader's hold, larger than every earlier term's. */
    public long fencingToken() {
        return token;
    }

    /**
     * Whether this term is still the current one: not revoked, and its lease not run out on this
     * instance's clock (less the revocation margin). Reads the clock, so it is right at once after
     * a pause, before the revocation is delivered; leader-only work checks it before each step.
     */
    public boolean isValid() {
        return revocation == null && hold.state() == Hold.State.HELD && !hasExpired(ticker.nanoTime());
    }

    /**
     * When this instance learned that it won this term, on the factory's wall clock
     * ({@link DistributedLockFactory.Builder#clock}, the system's UTC clock by default): for logs
     * and people. How long the term lasts is measured on the monotonic clock instead
     * ({@link #remainingLease()}), which a wall clock set back or forward does not move.
     */
    public Instant electedAt() {
        return electedAt;
    }

    /** How long this term lasts if its lease is not renewed again; zero once it is not {@linkplain #isValid valid}. */
    public Duration remainingLease() {
        long left = endNanos() - ticker.nanoTime();
        return isValid() && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /**
     * Completes with the reason when this term ends, whatever the reason (also a step down or a
     * close): the signal for leader-only work to stop. It completes on the thread that revoked the
     * term (the factory's scheduler thread for a lease that ran out or a loss, the caller's for
     * {@link Leadership#stepDown()}, {@link Leadership#close()} and a force release through this
     * factory), and the term's {@code onRevoked} is called only after that: the actions attached
     * to this stage without an executor ({@code thenRun}, {@code whenComplete}…) have returned
     * before {@code onRevoked} starts. They hold up {@code onRevoked} and the thread that revoked
     * the term, so they must be short; one may call {@code stepDown()} or {@code close()}, which
     * then return at once, as from a callback.
     */
    public CompletionStage<RevocationReason> lost() {
        return lost.minimalCompletionStage();
    }

    /** Why this term ended, or empty while it has not been revoked. */
    public Optional<RevocationReason> revocation() {
        return Optional.ofNullable(revocation);
    }

    /** Whether the lease has run out here (less the margin) at {@code nowNanos} or was seen to before. */
    boolean hasExpired(long nowNanos) {
        if (!expired && endNanos() - nowNanos <= 0) {
            expired = true;
        }
        return expired;
    }

    /** When this term ends on the ticker unless renewed: the hold's deadline less the margin. */
    long endNanos() {
        return hold.deadlineNanos() - marginNanos;
    }

    Hold hold() {
        return hold;
    }

    /** Marks the term revoked for {@code reason} at {@code nowNanos}; returns false when it was already revoked. */
    synchronized boolean markRevoked(RevocationReason reason, long nowNanos) {
        if (revocation != null) {
            return false;
        }
        revokedAt = nowNanos;
        revocation = reason;
        return true;
    }

    /** When the term was revoked, on the ticker (valid once {@link #revocation()} is present). */
    long revokedAtNanos() {
        return revokedAt;
    }

    /** Completes {@link #lost()}, after {@link #markRevoked}. */
    void completeLost(RevocationReason reason) {
        lost.complete(reason);
    }

    @Override
    public String toString() {
        RevocationReason r = revocation;
        return "Term[" + LockException.abbreviate(name) + ", token " + token + ", elected " + electedAt
                + (r == null ? "" : ", revoked " + r) + "]";
    }
}
