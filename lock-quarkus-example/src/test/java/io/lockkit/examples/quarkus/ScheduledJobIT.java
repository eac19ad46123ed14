package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two instances of the packaged application ({@code java -jar target/quarkus-app/quarkus-run.jar},
 * after {@code package}, run by failsafe) schedule {@link ReportJob} every second against one Redis:
 * over more than 20 seconds the job runs exactly once per second, and its fencing tokens increase.
 */
@DisplayName("@Scheduled(every = \"1s\") under @Locked(holdAtLeast) in two packaged instances: one run per period")
class ScheduledJobIT {

    /** Seconds during which both instances run and the runs are counted. */
    private static final int PERIODS = 22;

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private record Line(String what, String instance, long millis, long token) {
        static Line parse(String text) {
            String[] f = text.trim().split(" ");
            return new Line(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3]));
        }
    }

    private static Path app() {
        return Paths.get(System.getProperty("lockkit.example.app", "target/quarkus-app/quarkus-run.jar"));
    }

    private static Process start(String instance, RedisServer redis, Path dir) throws IOException {
        List<String> command = List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx128m",
                "-Dquarkus.lockkit.redis.uri=" + redis.uri(),
                "-Dquarkus.http.port=0",
                // application.properties sets quarkus.lockkit.redis.key-prefix=inventory: a run-time value overrides it
                "-Dquarkus.lockkit.redis.key-prefix=scheduled-it",
                "-Dexample.instance=" + instance,
                "-Dexample.report.runs-file=" + dir.resolve("runs-" + instance + ".txt"),
                "-jar",
                app().toString());
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(instance + ".log").toFile())
                .start();
    }

    private static List<Line> lines(Path dir) {
        List<Line> lines = new ArrayList<>();
        for (String instance : List.of("a", "b")) {
            Path file = dir.resolve("runs-" + instance + ".txt");
            try {
                if (Files.exists(file)) {
                    for (String text : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                        if (!text.isBlank()) {
                            lines.add(Line.parse(text));
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return lines;
    }

    /** The first whole second at which both instances had started, or MAX_VALUE before. */
    private static long firstCountedSecond(List<Line> lines) {
        List<Line> ready = lines.stream().filter(l -> l.what().equals("ready")).toList();
        if (ready.size() < 2) {
            return Long.MAX_VALUE;
        }
        return ready.stream().mapToLong(Line::millis).max().orElseThrow() / 1000 + 2;
    }

    /**
     * The period a run belongs to: the whole second nearest its start. Quarkus' scheduler fires on
     * whole seconds, but an instance's first run may come just before one.
     */
    private static long second(long millis) {
        return (millis + 500) / 1000;
    }

    @Test
    @DisplayName("both instances up for more than 20 seconds: exactly one run in each second, tokens increasing")
    void onceRunPerPeriodAcrossTwoInstances(RedisServer redis) throws Exception {
        assertThat(app()).as("the packaged application (mvn package)").exists();
        Path dir = Files.createDirectories(Paths.get("target", "scheduled-it"));
        for (String name : List.of("runs-a.txt", "runs-b.txt", "a.log", "b.log")) {
            Files.deleteIfExists(dir.resolve(name));
        }
        Process a = start("a", redis, dir);
        Process b = start("b", redis, dir);
        long stoppedAt;
        try {
            await().atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        List<Line> lines = lines(dir);
                        long first = firstCountedSecond(lines);
                        return lines.stream()
                                        .filter(l -> l.what().equals("run") && second(l.millis()) >= first)
                                        .count()
                                > PERIODS + 1;
                    });
        } finally {
            stoppedAt = System.currentTimeMillis();
            for (Process p : List.of(a, b)) {
                p.destroy(); // SIGTERM to that pid: Quarkus' graceful shutdown
            }
            for (Process p : List.of(a, b)) {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
        List<Line> lines = lines(dir);
        long first = firstCountedSecond(lines);
        long last = second(stoppedAt) - 1; // the second the stop fell in is not counted
        List<Line> runs = lines.stream()
                .filter(l -> l.what().equals("run"))
                .sorted(Comparator.comparingLong(Line::millis))
                .toList();
        Map<Long, List<String>> bySecond = new TreeMap<>();
        for (long s = first; s < last; s++) {
            bySecond.put(s, new ArrayList<>());
        }
        for (Line run : runs) {
            List<String> inSecond = bySecond.get(second(run.millis()));
            if (inSecond != null) {
                inSecond.add(run.instance() + "@" + run.millis());
            }
        }
        assertThat(bySecond).as("seconds counted").hasSizeGreaterThanOrEqualTo(PERIODS);
        assertThat(bySecond.entrySet().stream()
                        .filter(e -> e.getValue().size() != 1)
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)))
                .as("seconds without exactly one run (of %s)", bySecond)
                .isEmpty();
        for (int i = 1; i < runs.size(); i++) {
            assertThat(runs.get(i).token())
                    .as("fencing token of run %d (%s) after %s", i, runs.get(i), runs.get(i - 1))
                    .isGreaterThan(runs.get(i - 1).token());
        }
        for (String instance : List.of("a", "b")) {
            assertThat(Files.readString(dir.resolve(instance + ".log"), StandardCharsets.UTF_8))
                    .as("instance %s's log: the key prefix given at run time, not application.properties'", instance)
                    .contains("prefix scheduled-it]");
        }
        System.out.printf(
                "ScheduledJobIT: %d seconds counted, runs by instance %s%n",
                bySecond.size(),
                runs.stream().collect(Collectors.groupingBy(Line::instance, TreeMap::new, Collectors.counting())));
    }
}
