package io.lockkit.examples.quarkus;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Where {@link ReportJob} publishes its runs: here, a line per run in {@code example.report.runs-file}
 * (instance, start in epoch milliseconds, fencing token), which ScheduledJobIT reads; nowhere when unset.
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
        record("ready", System.currentTimeMillis(), 0);
    }

    /** Records a run of the report that holds the fencing token {@code token}. */
    public void publish(long token) {
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
