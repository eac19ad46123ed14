package io.lockkit.examples.quarkus;

// guide:quarkus-scheduled-begin
import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.temporal.ChronoUnit;

/**
 * A report every instance schedules each second, which one instance runs per second: each second
 * has a lock of its own, named by the time the scheduler meant the call for, and holdAtLeast keeps
 * it for ten seconds, so the other instances' calls of that second are skipped however late they
 * come, while the next second's lock is another one.
 */
@ApplicationScoped
public class ReportJob {

    @Inject
    Reports reports;

    @Scheduled(every = "1s")
    @Locked(
            value = "report:{period:PT1S:execution.scheduledFireTime}",
            waitTime = 0,
            whenBusy = WhenBusy.SKIP,
            holdAtLeast = 10,
            holdAtLeastUnit = ChronoUnit.SECONDS)
    void report(ScheduledExecution execution) {
        long token = CurrentLock.handle().orElseThrow().fencingToken();
        reports.publish(execution.getScheduledFireTime(), token);
    }
}
// guide:quarkus-scheduled-end
