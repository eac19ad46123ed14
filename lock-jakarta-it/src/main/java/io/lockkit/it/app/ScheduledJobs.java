package io.lockkit.it.app;

import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Timer;

/**
 * Two EJB calendar timers of the same period on every instance: one under {@code @Locked}, which
 * must run once per period across all instances, and the same job without a lock, which runs on
 * each (the negative control). Each run is recorded in the shared {@code ticks} log with the
 * period it belongs to.
 */
// The lock is named by the period (the timer's next expiration identifies the current one on every
// instance): a run that starts late, even by more than holdAtLeast, still finds its period's lock
// taken, so each period runs once however late an instance's timer fires. holdAtLeast keeps that
// lock held well past the period after the run returns.
@Singleton
public class ScheduledJobs {

    static final long PERIOD_MILLIS = 2000;

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false, info = "locked")
    @Locked(value = "tick:{timer.nextTimeout.time}", waitTime = 0, whenBusy = WhenBusy.SKIP, holdAtLeast = 30)
    public void lockedTick(Timer timer) {
        SharedState.tick("locked", timer.getNextTimeout().toInstant().toEpochMilli() - PERIOD_MILLIS);
    }

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false, info = "unlocked")
    public void unlockedTick(Timer timer) {
        SharedState.tick("unlocked", timer.getNextTimeout().toInstant().toEpochMilli() - PERIOD_MILLIS);
    }
}
