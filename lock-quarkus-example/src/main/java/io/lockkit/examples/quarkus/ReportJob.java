package io.lockkit.examples.quarkus;

import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A job every instance schedules each second and one instance runs per second: {@code @Locked} with
 * {@code holdAtLeast} keeps the lock for half a period after the run started, so the other
 * instances' calls of the same period find it held and are skipped.
 */
@ApplicationScoped
public class ReportJob {

    /** Where each run is recorded (a line: instance, start in epoch milliseconds, fencing token); unset: nowhere. */
    @ConfigProperty(name = "example.report.runs-file")
    Optional<String> runsFile;

    /** This instance's name in the record. */
    @ConfigProperty(name = "example.instance", defaultValue = "instance")
    String instance;

    void started(@Observes StartupEvent started) {
        record("ready", System.currentTimeMillis(), 0);
    }

    /** The report: runs once per second across all instances. */
    // guide:quarkus-scheduled-begin
    @Scheduled(every = "1s")
    @Locked(
            value = "report",
            waitTime = 0,
            whenBusy = WhenBusy.SKIP,
            holdAtLeast = 500,
            holdAtLeastUnit = ChronoUnit.MILLIS)
    void report() {
        long token = CurrentLock.handle().orElseThrow().fencingToken();
        publish(token);
    }
    // guide:quarkus-scheduled-end

    /** The report's work: here, a record of the run. */
    private void publish(long token) {
        record("run", System.currentTimeMillis(), token);
    }

    private void record(String what, long millis, long token) {
        if (runsFile.isEmpty()) {
            return;
        }
        String line = what + " " + instance + " " + millis + " " + token + "\n";
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
