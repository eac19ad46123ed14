package io.lockkit.spi;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * For provider implementations: how a wake-up connection (Redis pub/sub, PostgreSQL LISTEN) rides
 * out its loss, the same for every provider. One warning when it begins; reconnect attempts that
 * back off from {@value #MIN_BACKOFF_MILLIS} ms up to {@value #MAX_BACKOFF_MILLIS} ms (well below
 * any lease); waiters alerted once when it has lasted twice the command timeout (so a backend that
 * stays away surfaces as a typed failure of their next attempt, while a restart or a failover
 * within that time is ridden out); one line when it is over. Used by one thread (the wake-up
 * thread); not thread-safe.
 */
public final class Outage {

    private static final System.Logger LOG = System.getLogger(Outage.class.getName());

    /** The first pause between attempts that back off. */
    public static final long MIN_BACKOFF_MILLIS = 25;

    /** The longest pause between attempts. */
    public static final long MAX_BACKOFF_MILLIS = 200;

    private final String subject;
    private final long alertAfterNanos;
    private final long since = System.nanoTime();
    private int failedAttempts;
    private long backoffMillis;
    private boolean alerted;

    private Outage(String subject, Duration timeout) {
        this.subject = subject;
        this.alertAfterNanos = 2 * timeout.toNanos();
    }

    /**
     * An outage of {@code subject} (e.g. "the wake-up connection to Redis") that began with
     * {@code cause}; logs the one warning of the outage, saying what it did (e.g. "broke").
     * {@code timeout} is the provider's command timeout.
     */
    public static Outage begin(String subject, String what, Duration timeout, Throwable cause) {
        LOG.log(
                System.Logger.Level.WARNING,
                subject + " " + what + " (" + cause + "); reconnecting, waiters fall back to their retry hints"
                        + " meanwhile");
        LOG.log(System.Logger.Level.DEBUG, subject + " " + what, cause);
        return new Outage(subject, timeout);
    }

    /**
     * Counts a failed attempt; {@code backOff} false retries at once (an attempt that met a dead
     * pooled connection says nothing about Redis). Returns the pause before the next attempt.
     */
    public long failed(boolean backOff, Throwable cause) {
        failedAttempts++;
        LOG.log(System.Logger.Level.DEBUG, subject + ": attempt " + failedAttempts + " failed", cause);
        if (backOff) {
            backoffMillis = Math.min(MAX_BACKOFF_MILLIS, Math.max(MIN_BACKOFF_MILLIS, backoffMillis * 2));
        }
        return backOff ? backoffMillis : 0;
    }

    /** True once per outage, when it has lasted long enough that waiters should look now. */
    public boolean alertDue() {
        if (alerted || System.nanoTime() - since <= alertAfterNanos) {
            return false;
        }
        alerted = true;
        return true;
    }

    /** Logs the end of the outage. */
    public void over() {
        LOG.log(
                System.Logger.Level.INFO,
                subject + " is back after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since) + " ms ("
                        + failedAttempts + " failed attempt(s))");
    }
}
