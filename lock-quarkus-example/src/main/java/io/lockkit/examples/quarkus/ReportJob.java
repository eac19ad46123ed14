package io.lockkit.examples.quarkus;

// guide:quarkus-scheduled-begin
import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.temporal.ChronoUnit;

/** A report every instance schedules each second, which one instance runs per second. */
@ApplicationScoped
public class ReportJob {

    @Inject
    Reports reports;

    @Scheduled(every = "1s")
    @Locked(
            value = "report",
            waitTime = 0,
            whenBusy = WhenBusy.SKIP,
            holdAtLeast = 500,
            holdAtLeastUnit = ChronoUnit.MILLIS)
    void report() {
        long token = CurrentLock.handle().orElseThrow().fencingToken();
        reports.publish(token);
    }
}
// guide:quarkus-scheduled-end
