package io.lockkit.quarkus.deployment;

import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

/** Jobs the scheduler runs every second, deployed by the tests; each records that it ran in a system property. */
@ApplicationScoped
public class ScheduledJobs {

    /** Set once the scheduler ran {@link #tick}: the scheduler had started. */
    static final String TICKED = "test.lockkit.scheduled.ticked";

    /** Set once the scheduler called {@link #report} and it got its lock. */
    static final String REPORTED = "test.lockkit.scheduled.reported";

    @Scheduled(every = "1s")
    void tick() {
        System.setProperty(TICKED, "true");
    }

    @Scheduled(every = "1s")
    @Locked(value = "report", waitTime = 0, whenBusy = WhenBusy.SKIP)
    void report() {
        System.setProperty(REPORTED, "true");
    }
}
