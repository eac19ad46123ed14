package io.lockkit.examples.quarkus;

import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A job every instance schedules each second and one instance runs per second: each period has a
 * lock of its own, named by the time the scheduler meant the call for, and {@code holdAtLeast}
 * keeps it for ten periods after the run started, so the other instances' calls of the same period
 * find it held and are skipped, however late they come within those ten seconds, while the next
 * period's lock is another one.
 */
@ApplicationScoped
public class ReportJob {

    /**
     * Where each run is recorded (a line: instance, start and period in epoch milliseconds, fencing
     * token); unset: nowhere.
     */
    @ConfigProperty(name = "example.report.runs-file")
    Optional<String> runsFile;

    /** This instance's name in the record. */
    @ConfigProperty(name = "example.instance", defaultValue = "instance")
    String instance;

    void started(@Observes StartupEvent started) {
        record("ready", System.currentTimeMillis(), 0, 0);
    }

    /** The report: runs once per second across all instances. */
    // guide:quarkus-scheduled-begin
    @Scheduled(every = "1s")
    @Locked(
            value = "report:{period:PT1S:execution.scheduledFireTime}",
            waitTime = 0,
            whenBusy = WhenBusy.SKIP,
            holdAtLeast = 10,
            holdAtLeastUnit = ChronoUnit.SECONDS)
    void report(ScheduledExecution execution) {
        long token = CurrentLock.handle().orElseThrow().fencingToken();
        publish(execution.getScheduledFireTime(), token);
    }
    // guide:quarkus-scheduled-end

    /**
     * The negative control of ScheduledJobIT: the same schedule without the lock, recorded as a call
     * of every instance in every period, with how late it came.
     */
    @Scheduled(every = "1s")
    void call(ScheduledExecution execution) {
        record(
                "call",
                System.currentTimeMillis(),
                execution.getScheduledFireTime().toEpochMilli(),
                0);
    }

    /** The report's work: here, a record of the run, with the time it was meant for. */
    private void publish(Instant scheduled, long token) {
        record("run", System.currentTimeMillis(), scheduled.toEpochMilli(), token);
    }

    private void record(String what, long millis, long scheduled, long token) {
        if (runsFile.isEmpty()) {
            return;
        }
        String line = what + " " + instance + " " + millis + " " + scheduled + " " + token + "\n";
        try {
            Files.writeString(
                    Path.of(runsFile.get()),
                    line,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
