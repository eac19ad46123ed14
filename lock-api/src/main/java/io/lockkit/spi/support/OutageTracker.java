package io.lockkit.spi.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * For provider implementations: how a wake-up connection (Redis pub/sub, PostgreSQL LISTEN, a
 * polling connection) rides out its outages, the same for every provider. One warning when an
 * outage begins; the first attempt after it at once, then attempts that back off from {@value
 * #MIN_BACKOFF_MILLIS} ms up to {@value #MAX_BACKOFF_MILLIS} ms (well below any lease); the alert
 * (telling waiters to look again) run once when it has lasted twice the command timeout, so a
 * backend that stays away surfaces as a typed failure of their next attempt, while a restart or a
 * failover within that time is ridden out; one line when it is over. Used by one thread (the
 * connection's own); not thread-safe.
 */
public final class OutageTracker {

    private static final System.Logger LOG = System.getLogger(OutageTracker.class.getName());

    /** The first pause between attempts that back off. */
    public static final long MIN_BACKOFF_MILLIS = 25;

    /** The longest pause between attempts. */
    public static final long MAX_BACKOFF_MILLIS = 200;

    private final String subject;
    private final long alertAfterNanos;
    private final Runnable alert;
    private boolean active;
    private long since;
    private int failedAttempts;
    private long backoffMillis;
    private boolean alerted;

    /**
     * Outages of {@code subject} (e.g. "the wake-up connection to Redis"); {@code timeout} is the
     * provider's command timeout, and {@code alert} tells the waiters to look again (run on the
     * connection's thread, at most once per outage).
     */
    public OutageTracker(String subject, Duration timeout, Runnable alert) {
        this.subject = subject;
        this.alertAfterNanos = 2 * timeout.toNanos();
        this.alert = alert;
    }

    /** Whether an outage is on: an attempt failed, and none has worked since. */
    public boolean inOutage() {
        return active;
    }

    /**
     * An attempt failed with {@code cause}. When the connection worked until now ({@code
     * wasWorking}: it broke) or no outage is on (the first connection could not be made), an
     * outage begins with its one warning and the next attempt is at once; otherwise the pause
     * grows, and the alert runs once the outage has lasted long enough. Returns the pause in ms
     * before the next attempt.
     */
    public long failed(boolean wasWorking, Throwable cause) {
        if (wasWorking || !active) {
            begin(wasWorking ? "broke" : "could not be made", cause);
            return counted(false, cause);
        }
        long pause = counted(true, cause);
        if (!alerted && System.nanoTime() - since > alertAfterNanos) {
            alerted = true;
            alert.run();
        }
        return pause;
    }

    /**
     * An attempt of an outage failed in a way that says nothing about the backend (it met a dead
     * pooled connection): counted, and the next attempt is at once. Begins an outage as {@link
     * #failed failed(false, cause)} does when none is on. Returns the pause in ms (0).
     */
    public long failedAtOnce(Throwable cause) {
        if (!active) {
            return failed(false, cause);
        }
        return counted(false, cause);
    }

    /**
     * The connection works (again): ends the outage, if one is on, with one line in the log.
     * Returns whether one was on (its waiters may have missed notifications).
     */
    public boolean over() {
        if (!active) {
            return false;
        }
        active = false;
        LOG.log(
                System.Logger.Level.INFO,
                subject + " is back after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since) + " ms ("
                        + failedAttempts + " failed attempt(s))");
        return true;
    }

    private void begin(String what, Throwable cause) {
        LOG.log(
                System.Logger.Level.WARNING,
                subject + " " + what + " (" + cause + "); reconnecting, waiters fall back to their retry hints"
                        + " meanwhile");
        LOG.log(System.Logger.Level.DEBUG, subject + " " + what, cause);
        active = true;
        since = System.nanoTime();
        failedAttempts = 0;
        backoffMillis = 0;
        alerted = false;
    }

    private long counted(boolean backOff, Throwable cause) {
        failedAttempts++;
        LOG.log(System.Logger.Level.DEBUG, subject + ": attempt " + failedAttempts + " failed", cause);
        if (!backOff) {
            return 0;
        }
        backoffMillis = Math.min(MAX_BACKOFF_MILLIS, Math.max(MIN_BACKOFF_MILLIS, backoffMillis * 2));
        return backoffMillis;
    }
}
