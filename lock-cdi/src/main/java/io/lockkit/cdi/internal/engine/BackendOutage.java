package io.lockkit.cdi.internal.engine;

import io.lockkit.BackendUnavailableException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The outages of the lock backend as one application's {@code @Locked} calls meet them, logged
 * once each: a warning when the first call fails (its cause and root cause on that line), a DEBUG
 * line per call while it lasts, and an INFO line when a call takes a lock again, saying how long it
 * lasted and how many calls failed or were skipped. Thread-safe; never throws.
 */
// Design notes.
// - The same shape as the wake-up connections' OutageTracker (io.lockkit.spi.support; one warning, DEBUG while it
//   lasts, one line when it is over), but shared by every thread that calls a @Locked method, so
//   the current outage is an AtomicReference that the first failing call sets and the first call
//   to take a lock afterwards clears; the counts are LongAdders.
// - A scheduled job calls once a period on every instance: a warning with a stack trace on every
//   call (what the scheduler logs when the call throws) drowns the log. whenBusy = SKIP methods are
//   therefore skipped during an outage (LockedMethod), and this class says so once.
// - A call that began before the outage ended and failed after it (a timeout that straddles the
//   recovery) is counted in the DEBUG log but does not start a new outage: recoveredAt orders them.
// - The start line carries no stack trace (it is at DEBUG): the exception's message and its root
//   cause say what is wrong, and the calls that throw give the trace to their callers anyway.
public final class BackendOutage {

    /** The logger of these lines: named after {@code @Locked}, where operators look for it. */
    static final String LOGGER = "io.lockkit.cdi.Locked";

    private static final System.Logger LOG = System.getLogger(LOGGER);

    /** One outage: when its first failure was seen, and the calls it failed and skipped. */
    private static final class Episode {
        final long since = System.nanoTime();
        final LongAdder failed = new LongAdder();
        final LongAdder skipped = new LongAdder();
    }

    private final AtomicReference<@Nullable Episode> current = new AtomicReference<>();
    /** When the last outage ended (System.nanoTime()); calls begun before then cannot start a new one. */
    private volatile long recoveredAt = System.nanoTime() - TimeUnit.DAYS.toNanos(1);

    /** When a call's attempt to take its lock begins, for {@link #failed}. */
    public static long attemptBegins() {
        return System.nanoTime();
    }

    /**
     * A call of {@code method} could not take lock {@code lockName} because the backend is
     * unavailable; {@code skipped}: the call returns as if the lock were busy, else it throws
     * {@code failure}. {@code attemptBegan} is {@link #attemptBegins()} of that attempt.
     */
    public void failed(
            long attemptBegan, String method, String lockName, BackendUnavailableException failure, boolean skipped) {
        Episode episode = current.get();
        boolean began = false;
        if (episode == null && attemptBegan - recoveredAt > 0) {
            Episode fresh = new Episode();
            began = current.compareAndSet(null, fresh);
            episode = began ? fresh : current.get();
        }
        if (episode != null) {
            (skipped ? episode.skipped : episode.failed).increment();
        }
        String what = "@Locked " + method + " (lock '" + abbreviate(lockName) + "') " + (skipped ? "skipped" : "failed")
                + ": the lock backend is unavailable";
        if (began) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: the lock backend is unavailable to @Locked calls: " + describe(failure)
                            + " (first: " + method + "); until a call takes a lock again, calls of methods with"
                            + " whenBusy = SKIP are skipped and the others throw BackendUnavailableException,"
                            + " logged at DEBUG");
        }
        LOG.log(System.Logger.Level.DEBUG, what, failure);
    }

    /** A call took its lock: ends the outage in progress, if there is one, with its summary line. */
    public void succeeded() {
        Episode episode = current.get();
        if (episode == null) {
            return;
        }
        long now = System.nanoTime();
        // Before the outage ends: a failure of a call begun before now, seen in between, is then
        // counted in this outage rather than starting a new one.
        recoveredAt = now;
        if (!current.compareAndSet(episode, null)) {
            return;
        }
        LOG.log(
                System.Logger.Level.INFO,
                "lockkit: @Locked calls take locks again, the lock backend is back after "
                        + TimeUnit.NANOSECONDS.toMillis(now - episode.since) + " ms; during the outage "
                        + episode.failed.sum() + " call(s) failed and " + episode.skipped.sum()
                        + " were skipped (whenBusy = SKIP)");
    }

    /** Whether an outage is in progress: a call failed for it and none has taken a lock since. */
    public boolean inProgress() {
        return current.get() != null;
    }

    /** The failure's message and, when that does not already name it, its root cause. */
    static String describe(Throwable failure) {
        Throwable root = rootCause(failure);
        String message = String.valueOf(failure.getMessage());
        if (root == failure) {
            return message;
        }
        String rootMessage = root.getMessage();
        boolean named = rootMessage != null && !rootMessage.isBlank() && message.contains(rootMessage);
        return named ? message : message + " (root cause: " + root + ")";
    }

    /**
     * The innermost cause; where an exception has no cause but suppressed ones, the first of those
     * (Jedis reports the refused connection of each address it tried as suppressed exceptions).
     */
    static Throwable rootCause(Throwable failure) {
        Throwable root = failure;
        for (int depth = 0; depth < 20; depth++) {
            Throwable cause = root.getCause();
            if (cause != null && cause != root) {
                root = cause;
            } else if (root.getSuppressed().length > 0) {
                root = root.getSuppressed()[0];
            } else {
                break;
            }
        }
        return root;
    }

    private static String abbreviate(String name) {
        return name.length() <= 200 ? name : name.substring(0, 200) + "…[" + name.length() + " chars]";
    }

    @Override
    public String toString() {
        return "BackendOutage[" + (inProgress() ? "in progress" : "none") + "]";
    }
}
