package io.lockkit.examples.quarkus;

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
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Where {@link ReportJob} publishes its runs: here, a line per run in {@code example.report.runs-file}
 * (what, instance, start and period in epoch milliseconds, fencing token), which ScheduledJobIT
 * reads; nowhere when unset.
 */
@ApplicationScoped
public class Reports {

    /** Where each run is recorded; unset: nowhere. */
    @ConfigProperty(name = "example.report.runs-file")
    Optional<String> runsFile;

    /** This instance's name in the record. */
    @ConfigProperty(name = "example.instance", defaultValue = "instance")
    String instance;

    void started(@Observes StartupEvent started) {
        record("ready", System.currentTimeMillis(), 0, 0);
    }

    /** Records a run of the report meant for {@code scheduled} that holds the fencing token {@code token}. */
    public void publish(Instant scheduled, long token) {
        record("run", System.currentTimeMillis(), scheduled.toEpochMilli(), token);
    }

    /**
     * The negative control of ScheduledJobIT: the report's schedule without the lock, recorded as a
     * call of every instance in every period, with how late it came.
     */
    @Scheduled(every = "1s")
    void call(ScheduledExecution execution) {
        record(
                "call",
                System.currentTimeMillis(),
                execution.getScheduledFireTime().toEpochMilli(),
                0);
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
