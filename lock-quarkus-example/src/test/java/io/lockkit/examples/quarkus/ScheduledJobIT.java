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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two instances of the packaged application ({@code java -jar target/quarkus-app/quarkus-run.jar},
 * after {@code package}, run by failsafe) schedule {@link ReportJob} every second against one Redis,
 * under load: a process of busy threads, and every third second one instance's JVM paused for 700 ms
 * across a second's boundary, so that its call of that second comes about 600 ms late. Over more
 * than 20 seconds each period (the second the scheduler meant a call for) has exactly one run.
 */
// Design notes.
// - Under load Quarkus' scheduler calls jobs late: a run once started 694 ms after its second, and
//   with one lock name for every period and holdAtLeast of half a period, its hold reached into the
//   next second, whose calls on both instances found it busy: that second had no run (and the late
//   call itself ran its second a second time when the other instance's hold had ended). Busy
//   threads alone rarely delay a woken scheduler thread that much on Linux (in one run of 4 busy
//   threads the latest run started 136 ms late), so the test pauses the instances' JVMs (SIGSTOP,
//   then SIGCONT: the processes this test started), as a long GC pause or a stalled VM would: the
//   scheduler's check of that second runs when the JVM resumes, about 600 ms late.
// - Runs are counted by the period they were meant for (the scheduled fire time the job records,
//   rounded to the nearest second as the lock name is), not by when they started: a late run
//   belongs to its own period. Reports' unlocked twin of the job records every call ("call" lines): the
//   negative control, two calls per period, and the proof that late calls happened.
// - lockkit.example.load-threads=0 runs without busy threads, lockkit.example.pauses=false without
//   pauses.
@DisplayName("@Scheduled(every = \"1s\") under @Locked, a lock per period, in two packaged instances under load:"
        + " one run per period")
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
class ScheduledJobIT {

    /** Seconds during which both instances run and the runs are counted. */
    private static final int PERIODS = 22;

    /** Busy threads of the load process. */
    private static final int LOAD_THREADS = Integer.getInteger("lockkit.example.load-threads", 4);

    /** Whether the instances are paused now and then, so that some calls come late. */
    private static final boolean PAUSES = Boolean.parseBoolean(System.getProperty("lockkit.example.pauses", "true"));

    /** How long a pause lasts, from 100 ms before a second's boundary. */
    private static final long PAUSE_MILLIS = 700;

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** A line of a runs file: what (ready, run, call), the instance, when, the time the call was meant for, the token. */
    private record Line(String what, String instance, long millis, long scheduled, long token) {
        static Line parse(String text) {
            String[] f = text.trim().split(" ");
            return new Line(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
        }

        /** The period (second) the run was meant for: its scheduled time rounded to the nearest second. */
        long period() {
            return Math.floorDiv(scheduled + 500, 1000);
        }

        /** How late the run started after its period's boundary, in ms. */
        long lateMillis() {
            return millis - period() * 1000;
        }
    }

    private static Path app() {
        return Paths.get(System.getProperty("lockkit.example.app", "target/quarkus-app/quarkus-run.jar"));
    }

    private static Path java() {
        return Paths.get(System.getProperty("java.home"), "bin", "java");
    }

    private static Process start(String instance, RedisServer redis, Path dir) throws IOException {
        List<String> command = List.of(
                java().toString(),
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

    /** The load: {@link CpuLoad} in a JVM of its own, for at most five minutes. */
    private static Process startLoad(Path dir) throws IOException {
        List<String> command = List.of(
                java().toString(),
                "-Xmx32m",
                "-cp",
                System.getProperty("java.class.path"),
                CpuLoad.class.getName(),
                Integer.toString(LOAD_THREADS),
                "300");
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("load.log").toFile())
                .start();
    }

    /**
     * Until {@code stop}, every third second pauses one of {@code instances} (in turn) from 100 ms
     * before a second's boundary for {@link #PAUSE_MILLIS}; counts the pauses.
     */
    private static Thread startPauses(List<Process> instances, AtomicBoolean stop, AtomicInteger pauses) {
        Thread pauser = new Thread(
                () -> {
                    try {
                        for (int turn = 0; !stop.get(); turn++) {
                            long now = System.currentTimeMillis();
                            long target = (now / 1000 + 3) * 1000 - 100;
                            Thread.sleep(target - now);
                            if (stop.get()) {
                                return;
                            }
                            Process p = instances.get(turn % instances.size());
                            signal("STOP", p);
                            try {
                                Thread.sleep(PAUSE_MILLIS);
                            } finally {
                                signal("CONT", p);
                            }
                            pauses.incrementAndGet();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "scheduled-it-pauses");
        pauser.start();
        return pauser;
    }

    /** Sends {@code SIG<signal>} to {@code process}, one this test started. */
    private static void signal(String signal, Process process) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    /** The whole second nearest {@code millis}. */
    private static long second(long millis) {
        return Math.floorDiv(millis + 500, 1000);
    }

    @Test
    @DisplayName(
            "both instances up for more than 20 seconds under load, some calls 600 ms late: exactly one run for each"
                    + " period")
    void oneRunPerPeriodAcrossTwoInstancesUnderLoad(RedisServer redis) throws Exception {
        assertThat(app()).as("the packaged application (mvn package)").exists();
        Path dir = Files.createDirectories(Paths.get("target", "scheduled-it"));
        for (String name : List.of("runs-a.txt", "runs-b.txt", "a.log", "b.log", "load.log")) {
            Files.deleteIfExists(dir.resolve(name));
        }
        Process a = start("a", redis, dir);
        Process b = start("b", redis, dir);
        Process load = null;
        Thread pauser = null;
        AtomicBoolean stopPauses = new AtomicBoolean();
        AtomicInteger pauses = new AtomicInteger();
        long stoppedAt;
        try {
            await().atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> firstCountedSecond(lines(dir)) != Long.MAX_VALUE);
            if (LOAD_THREADS > 0) {
                load = startLoad(dir);
            }
            if (PAUSES) {
                pauser = startPauses(List.of(a, b), stopPauses, pauses);
            }
            await().atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        List<Line> lines = lines(dir);
                        long first = firstCountedSecond(lines);
                        return lines.stream()
                                        .filter(l -> l.what().equals("run") && l.period() >= first)
                                        .count()
                                > PERIODS + 3;
                    });
        } finally {
            stoppedAt = System.currentTimeMillis();
            stopPauses.set(true);
            if (pauser != null) {
                pauser.join(10_000); // ends a pause under way with SIGCONT
            }
            if (load != null) {
                load.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // that pid: the load this test started
            }
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
        // Neither the period the stop fell in nor the one before: a late run of it may not have come yet.
        long last = second(stoppedAt) - 2;
        Map<Long, List<String>> byPeriod = new TreeMap<>();
        for (long s = first; s < last; s++) {
            byPeriod.put(s, new ArrayList<>());
        }
        List<Line> runs = counted(lines, "run", byPeriod);
        List<Line> calls = counted(lines, "call", byPeriod);
        for (Line run : runs) {
            byPeriod.get(run.period()).add(run.instance() + "@+" + run.lateMillis() + "ms");
        }
        System.out.printf(
                "ScheduledJobIT: %d periods counted, %d busy threads, %d pauses of %d ms: %d periods with one run,"
                        + " %d with none, %d with more; runs by instance %s; calls (the unlocked twin) %d, %d of them"
                        + " more than 500 ms late, the latest %d ms; runs more than 500 ms late %d, the latest %d ms%n",
                byPeriod.size(),
                LOAD_THREADS,
                pauses.get(),
                PAUSE_MILLIS,
                byPeriod.values().stream().filter(r -> r.size() == 1).count(),
                byPeriod.values().stream().filter(List::isEmpty).count(),
                byPeriod.values().stream().filter(r -> r.size() > 1).count(),
                runs.stream().collect(Collectors.groupingBy(Line::instance, TreeMap::new, Collectors.counting())),
                calls.size(),
                calls.stream().filter(c -> c.lateMillis() > 500).count(),
                calls.stream().mapToLong(Line::lateMillis).max().orElse(0),
                runs.stream().filter(r -> r.lateMillis() > 500).count(),
                runs.stream().mapToLong(Line::lateMillis).max().orElse(0));
        assertThat(byPeriod).as("periods counted").hasSizeGreaterThanOrEqualTo(PERIODS);
        assertThat(byPeriod.entrySet().stream()
                        .filter(e -> e.getValue().size() != 1)
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)))
                .as("periods without exactly one run (of %s)", byPeriod)
                .isEmpty();
        assertThat(runs).allSatisfy(run -> assertThat(run.token()).isPositive());
        if (PAUSES) {
            assertThat(calls.stream().filter(c -> c.lateMillis() > 500))
                    .as("calls that came more than 500 ms late: the paused instances'")
                    .isNotEmpty();
        }
        for (String instance : List.of("a", "b")) {
            assertThat(Files.readString(dir.resolve(instance + ".log"), StandardCharsets.UTF_8))
                    .as("instance %s's log: the key prefix given at run time, not application.properties'", instance)
                    .contains("prefix scheduled-it]");
        }
    }

    /** The lines of {@code what} whose period is counted, in order of their start. */
    private static List<Line> counted(List<Line> lines, String what, Map<Long, List<String>> byPeriod) {
        return lines.stream()
                .filter(l -> l.what().equals(what) && byPeriod.containsKey(l.period()))
                .sorted(Comparator.comparingLong(Line::millis))
                .toList();
    }
}
