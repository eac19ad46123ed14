package io.lockkit.it.app;

import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Timer;
import java.time.Instant;

/**
 * Two EJB calendar timers of the same period on every instance: one under {@code @Locked}, which
 * must run once per period across all instances, and the same job without a lock, which runs on
 * each (the negative control). Each run is recorded in the shared {@code ticks} log with the
 * period it belongs to.
 */
// The lock is named by the period, the boundary nearest to the firing ({period:PT2S}): instances whose
// timers fire up to a second early or late name it alike. The lock was once named by the timer's own
// next timeout ({timer.nextTimeout.time}), and on WildFly Preview under load the first period after
// deployment ran on both instances 250 ms apart: that name depends on each container's timer
// bookkeeping. holdAtLeast keeps the period's lock held for a whole period, past the latest firing.
@Singleton
public class ScheduledJobs {

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false, info = "locked")
    @Locked(value = "tick:{period:PT2S}", waitTime = 0, whenBusy = WhenBusy.SKIP, holdAtLeast = 2)
    public void lockedTick(Timer timer) {
        // The period the lock was named for (not the clock's period when the body runs, which a
        // slow grant or a pause on a loaded machine can move into the next one).
        String name = CurrentLock.handle().orElseThrow().name();
        long period = Instant.parse(name.substring(name.indexOf(':') + 1)).toEpochMilli();
        SharedState.tick("locked", period, next(timer));
    }

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false, info = "unlocked")
    public void unlockedTick(Timer timer) {
        SharedState.tick("unlocked", SharedState.period(System.currentTimeMillis()), next(timer));
    }

    /** The timer's own next timeout, recorded beside the period to show where the two disagree. */
    private static String next(Timer timer) {
        return "next=" + timer.getNextTimeout().toInstant().toEpochMilli();
    }
}
