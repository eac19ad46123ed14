package io.lockkit;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockLeadership}'s pause between campaigns: sitting out after a step down, or backing off
 * after a failed attempt. Every method but the timer's runs under the leadership's lock.
 *
 * <p>Design: the end of a pause is a timer on the factory's scheduler that signals the leadership's
 * condition, so that a test's clock and scheduler drive it like every other deadline; the pause
 * ends when the clock says so. A scheduler that refuses the timer (shut down) leaves the waiting
 * thread to wait on the clock itself. Numbered pauses make a late timer of an earlier pause do
 * nothing.
 */
final class CampaignPause {

    /** The first pause after a failed campaign attempt; it doubles up to the options' maximum. */
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final ReentrantLock lock;
    private final Condition changed;
    private final ScheduledExecutorService scheduler;
    private final Ticker ticker;

    private boolean paused;
    private long until;
    /** start() during a pause: campaign now. */
    private boolean rejoinNow;

    private long sequence;
    private @Nullable ScheduledFuture<?> timer;

    CampaignPause(ReentrantLock lock, Condition changed, ScheduledExecutorService scheduler, Ticker ticker) {
        this.lock = lock;
        this.changed = changed;
        this.scheduler = scheduler;
        this.ticker = ticker;
    }

    /** Starts a pause of {@code nanos} from now, replacing one that is on. */
    void begin(long nanos) {
        paused = true;
        rejoinNow = false;
        until = ticker.nanoTime() + nanos;
        long n = ++sequence;
        cancelTimer();
        try {
            timer = scheduler.schedule(() -> wake(n), nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            timer = null;
        }
    }

    /** Starts a back-off after {@code failures} failed attempts in a row: 50 ms doubling up to {@code capNanos}, jittered. */
    void backOff(int failures, long capNanos) {
        long delay = failures >= 20 ? capNanos : Math.min(capNanos, FIRST_RETRY_NANOS << (failures - 1));
        // Jitter, so that instances that failed together do not all come back in the same instant.
        begin(delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1));
    }

    /** Ends a pause that is on at once (start() asks to campaign now). */
    void rejoin() {
        if (paused) {
            rejoinNow = true;
            changed.signalAll();
        }
    }

    /**
     * Waits until the pause is over (or there is none), returning true, or until {@code stop} says
     * so, returning false; {@code stop} is read under the lock at every change.
     */
    boolean await(BooleanSupplier stop) {
        while (!stop.getAsBoolean()) {
            if (!paused) {
                return true;
            }
            long left = until - ticker.nanoTime();
            if (rejoinNow || left <= 0) {
                paused = false;
                rejoinNow = false;
                cancelTimer();
                return true;
            }
            if (timer == null) {
                try {
                    changed.awaitNanos(left); // no timer to wake us: wait on the clock
                } catch (InterruptedException e) {
                    // an interrupt meant for the campaign's wait: look again
                }
            } else {
                changed.awaitUninterruptibly();
            }
        }
        return false;
    }

    /** Cancels the timer (at close). */
    void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void wake(long n) {
        lock.lock();
        try {
            if (n == sequence) {
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }
}
