package io.lockkit.benchmarks;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs every benchmark scenario against one local Redis and writes {@code RESULTS.md},
 * {@code chart.svg}, {@code summary.csv} and the raw JSON of each run.
 *
 * <p>Design notes. Redis comes from the test fixture (a {@code redis-server} on the PATH, else
 * the embedded binary) and, on a machine with at least two CPUs and {@code taskset}, is pinned to
 * CPU 0 while this JVM (and the JMH forks it starts, which inherit the affinity) is pinned to
 * CPU 1: unpinned, a 2-CPU machine flips between "client and server share a CPU" and "they do
 * not" from run to run, and the ratios become noise. Every scenario runs once per run for each
 * library, the libraries in a rotated order per run so drift does not favour one; the report
 * shows medians across runs. P1 and P2 are JMH benchmarks (one fork per library and run); P3, P4
 * and P6 are plain drivers in this JVM; D (one run) splits lockkit's uncontended cost into Redis
 * and client time; P5 runs once, lockkit and Redisson side by side on two Redis servers, because
 * it only counts. A step that fails is reported and the others go on.
 */
public final class BenchmarkMain {

    static final List<Integer> CONTENDERS = List.of(1, 2, 4, 8, 16, 32, 64);

    /** How long and how often; {@link #fullRun()} is what the committed results use. */
    record Settings(
            boolean quick,
            int runs,
            int jmhWarmups,
            Duration jmhWarmup,
            int jmhIterations,
            Duration jmhIteration,
            Duration p3Warmup,
            Duration p3Measure,
            List<Integer> p4Contenders,
            Duration p4Warmup,
            Duration p4Measure,
            int p5Locks,
            Duration p5Window,
            int p6Waiters,
            Set<String> scenarios,
            boolean pin,
            Path out) {

        static Settings fullRun() {
            return new Settings(
                    false,
                    3,
                    3,
                    Duration.ofSeconds(1),
                    5,
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(5),
                    CONTENDERS,
                    Duration.ofMillis(750),
                    Duration.ofMillis(1500),
                    10_000,
                    Duration.ofMinutes(2),
                    1000,
                    Set.of("P1", "P2", "P3", "P4", "P5", "P6", "D"),
                    true,
                    Path.of("results"));
        }

        static Settings quickRun() {
            return new Settings(
                    true,
                    1,
                    1,
                    Duration.ofMillis(500),
                    2,
                    Duration.ofMillis(500),
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(2),
                    List.of(1, 8, 64),
                    Duration.ofMillis(500),
                    Duration.ofSeconds(1),
                    1000,
                    Duration.ofSeconds(25),
                    1000,
                    Set.of("P1", "P2", "P3", "P4", "P5", "P6", "D"),
                    true,
                    Path.of("target", "bench-quick"));
        }

        Settings with(int runs, Set<String> scenarios, boolean pin, Path out) {
            return new Settings(
                    quick,
                    runs,
                    jmhWarmups,
                    jmhWarmup,
                    jmhIterations,
                    jmhIteration,
                    p3Warmup,
                    p3Measure,
                    p4Contenders,
                    p4Warmup,
                    p4Measure,
                    p5Locks,
                    p5Window,
                    p6Waiters,
                    scenarios,
                    pin,
                    out);
        }

        boolean includes(String scenario) {
            return scenarios.contains(scenario);
        }
    }

    record Machine(
            String cpu,
            int cores,
            String pinning,
            String jdk,
            String jvmFlags,
            String os,
            String redis,
            String lockkitCommit,
            String started,
            String command) {}

    record Latency(
            Library library,
            double p50Micros,
            double p90Micros,
            double p99Micros,
            double p999Micros,
            double meanMicros,
            long samples) {}

    record Throughput(Library library, double pairsPerSecond, double error) {}

    record Run(
            int run,
            List<Library> order,
            Map<Library, Latency> p1,
            Map<Library, Throughput> p2,
            Map<Library, Contention.Result> p3,
            Map<Library, List<Contention.Result>> p4,
            Map<Library, WaiterFlood.Result> p6) {}

    record Results(
            Machine machine,
            Settings settings,
            List<Run> runs,
            List<WatchdogLoad.Result> p5,
            double minutes,
            List<Double> otherCpuPercentPerRun,
            double otherCpuPercent,
            List<Diagnostics.Row> diagnostics,
            List<String> failures) {}

    private static final long START = System.nanoTime();
    /** Scenarios that failed; the run goes on without them and the report lists them. */
    private static final List<String> FAILURES = new java.util.concurrent.CopyOnWriteArrayList<>();

    interface Step {
        void run() throws Exception;
    }

    /** Runs one scenario step; a failure is logged and recorded, and the harness goes on. */
    private static void attempt(String what, Step step) {
        try {
            step.run();
        } catch (Exception | LinkageError e) {
            FAILURES.add(what + ": " + e);
            log("FAILED %s: %s", what, e);
            e.printStackTrace();
        }
    }

    private BenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        Settings settings = parse(args);
        if (settings == null) {
            return;
        }
        int status = 1;
        try {
            status = run(settings) ? 0 : 2;
        } finally {
            // A failed step can leave a library's non-daemon threads behind; they must not keep the JVM up.
            System.exit(status);
        }
    }

    /** Runs the scenarios and writes the report; false when some step failed. */
    private static boolean run(Settings settings) throws Exception {
        String started =
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        int cores = Runtime.getRuntime().availableProcessors();
        RedisFixture fixture =
                RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();
        try (RedisServer server = fixture.start()) {
            String pinning = MachineFacts.pin(settings, server, cores);
            RedisAdmin redis = new RedisAdmin(server);
            Machine machine = new Machine(
                    MachineFacts.cpuModel(),
                    cores,
                    pinning,
                    System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
                            + System.getProperty("java.runtime.version"),
                    String.join(
                            " ",
                            java.lang.management.ManagementFactory.getRuntimeMXBean()
                                    .getInputArguments()),
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"),
                    "Redis " + server.version() + " (" + server.source() + "), loopback, persistence off",
                    MachineFacts.commit(),
                    started,
                    Report.COMMAND);
            log("Redis %s at %s; %s", server.version(), server.uri(), pinning);
            Files.createDirectories(settings.out().resolve("raw"));

            List<Run> runs = new ArrayList<>();
            OtherLoad whole = new OtherLoad(redis);
            List<Double> otherPerRun = new ArrayList<>();
            for (int r = 1; r <= settings.runs(); r++) {
                OtherLoad thisRun = new OtherLoad(redis);
                List<Library> order = rotated(r - 1);
                log("run %d of %d", r, settings.runs());
                Run run = new Run(
                        r,
                        order,
                        new EnumMap<>(Library.class),
                        new EnumMap<>(Library.class),
                        new EnumMap<>(Library.class),
                        new EnumMap<>(Library.class),
                        new EnumMap<>(Library.class));
                if (settings.includes("P1")) {
                    for (Library lib : order) {
                        attempt(
                                "P1 run " + r + " " + lib.label(),
                                () -> Scenarios.latency(settings, server.uri(), lib, run));
                    }
                }
                if (settings.includes("P2")) {
                    for (Library lib : order) {
                        attempt(
                                "P2 run " + r + " " + lib.label(),
                                () -> Scenarios.throughput(settings, server.uri(), lib, run));
                    }
                }
                if (settings.includes("P3") || settings.includes("P4")) {
                    for (Library lib : order) {
                        attempt(
                                "P3/P4 run " + r + " " + lib.label(),
                                () -> Scenarios.contention(settings, redis, lib, run));
                    }
                }
                if (settings.includes("P6")) {
                    for (Library lib : order) {
                        attempt("P6 run " + r + " " + lib.label(), () -> Scenarios.flood(settings, redis, lib, run));
                    }
                }
                runs.add(run);
                otherPerRun.add(thisRun.percentSince(cores));
                log(
                        "run %d: other processes used %.1f %% of the machine's CPU",
                        r, otherPerRun.get(otherPerRun.size() - 1));
                Files.writeString(settings.out().resolve("raw").resolve("run-" + r + ".json"), Json.write(run));
            }

            List<Diagnostics.Row> diagnostics = new ArrayList<>();
            if (settings.includes("D")) {
                attempt(
                        "D",
                        () -> diagnostics.addAll(Diagnostics.run(
                                redis,
                                settings.p3Warmup().dividedBy(2),
                                settings.p3Measure().dividedBy(2),
                                settings.out())));
            }
            List<WatchdogLoad.Result> p5 = new ArrayList<>();
            if (settings.includes("P5")) {
                attempt("P5", () -> {
                    p5.addAll(Scenarios.watchdog(settings, fixture, redis, pinning));
                    Files.writeString(settings.out().resolve("raw").resolve("p5.json"), Json.write(p5));
                });
            }
            double minutes = (System.nanoTime() - START) / 60e9;
            Results results = new Results(
                    machine,
                    settings,
                    runs,
                    p5,
                    minutes,
                    otherPerRun,
                    whole.percentSince(cores),
                    diagnostics,
                    List.copyOf(FAILURES));
            Files.writeString(settings.out().resolve("raw").resolve("machine.json"), Json.write(machine));
            Report.write(results, settings.out());
            log(
                    "wrote %s (%.1f minutes)%s",
                    settings.out().toAbsolutePath().normalize().resolve("RESULTS.md"),
                    minutes,
                    FAILURES.isEmpty() ? "" : "; " + FAILURES.size() + " steps failed: " + FAILURES);
            return FAILURES.isEmpty();
        }
    }

    // ---- set-up ----

    private static Settings parse(String[] args) {
        Settings s = Settings.fullRun();
        int runs = -1;
        Set<String> only = null;
        boolean pin = true;
        Path out = null;
        for (String raw : args) {
            String a = raw.trim();
            if (a.isEmpty()) {
                continue;
            }
            if (a.equals("--quick") || a.equals("quick")) { // "quick" fits -Dbench.args in a POM comment
                s = Settings.quickRun();
            } else if (a.startsWith("--runs=")) {
                runs = Integer.parseInt(a.substring("--runs=".length()));
            } else if (a.startsWith("--only=")) {
                only = new LinkedHashSet<>();
                for (String p : a.substring("--only=".length()).split(",")) {
                    only.add(p.trim().toUpperCase(Locale.ROOT));
                }
            } else if (a.equals("--no-pin")) {
                pin = false;
            } else if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            } else {
                System.out.println("""
                        usage: BenchmarkMain [--quick] [--runs=N] [--only=P1,P2,...] [--no-pin] [--out=DIR]
                          --quick   short durations, one run, 1,000 locks for 25 s in P5; writes to target/bench-quick
                          --runs    runs per scenario (default 3; the report shows medians)
                          --only    scenarios to run (default all: P1..P6 and D, where lockkit's uncontended
                                    time goes)
                          --no-pin  do not pin Redis to CPU 0 and this JVM to CPU 1 with taskset
                          --out     output directory (default results, or target/bench-quick with --quick)""");
                return null;
            }
        }
        return s.with(
                runs > 0 ? runs : s.runs(), only != null ? only : s.scenarios(), pin, out != null ? out : s.out());
    }

    private static List<Library> rotated(int by) {
        List<Library> all = new ArrayList<>(Arrays.asList(Library.values()));
        java.util.Collections.rotate(all, -by);
        return all;
    }

    static void log(String format, Object... args) {
        double t = (System.nanoTime() - START) / 1e9;
        System.out.printf(Locale.ROOT, "[%4.0fs] %s%n", t, String.format(Locale.ROOT, format, args));
        System.out.flush();
    }
}
