package io.lockkit.benchmarks;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

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
            String pinning = pin(settings, server, cores);
            RedisAdmin redis = new RedisAdmin(server);
            Machine machine = new Machine(
                    cpuModel(),
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
                    commit(),
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
                        attempt("P1 run " + r + " " + lib.label(), () -> latency(settings, server.uri(), lib, run));
                    }
                }
                if (settings.includes("P2")) {
                    for (Library lib : order) {
                        attempt("P2 run " + r + " " + lib.label(), () -> throughput(settings, server.uri(), lib, run));
                    }
                }
                if (settings.includes("P3") || settings.includes("P4")) {
                    for (Library lib : order) {
                        attempt("P3/P4 run " + r + " " + lib.label(), () -> contention(settings, redis, lib, run));
                    }
                }
                if (settings.includes("P6")) {
                    for (Library lib : order) {
                        attempt("P6 run " + r + " " + lib.label(), () -> flood(settings, redis, lib, run));
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
                    p5.addAll(watchdog(settings, fixture, redis, pinning));
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

    // ---- scenarios ----

    private static void latency(Settings s, String uri, Library library, Run run) throws RunnerException {
        for (RunResult r : jmh(s, uri, library, "p1LockUnlock")) {
            Library lib = Library.valueOf(r.getParams().getParam("library"));
            Result<?> p = r.getPrimaryResult();
            var st = p.getStatistics();
            Latency l = new Latency(
                    lib,
                    st.getPercentile(50),
                    st.getPercentile(90),
                    st.getPercentile(99),
                    st.getPercentile(99.9),
                    st.getMean(),
                    st.getN());
            run.p1().put(lib, l);
            log(
                    "P1 run %d %-8s: p50 %.0f µs, p99 %.0f µs (%d samples)",
                    run.run(), lib.label(), l.p50Micros(), l.p99Micros(), l.samples());
        }
    }

    private static void throughput(Settings s, String uri, Library library, Run run) throws RunnerException {
        for (RunResult r : jmh(s, uri, library, "p2DistinctNames")) {
            Library lib = Library.valueOf(r.getParams().getParam("library"));
            Result<?> p = r.getPrimaryResult();
            Throughput t = new Throughput(lib, p.getScore(), p.getScoreError());
            run.p2().put(lib, t);
            log("P2 run %d %-8s: %.0f pairs/s", run.run(), lib.label(), t.pairsPerSecond());
        }
    }

    /** One JMH fork for one library, so a library that fails does not take the others' figures with it. */
    private static Collection<RunResult> jmh(Settings s, String uri, Library library, String method)
            throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(Pattern.quote(LockLatencyBenchmark.class.getName() + "." + method) + "$")
                .param("library", library.name())
                .forks(1)
                .warmupIterations(s.jmhWarmups())
                .warmupTime(TimeValue.milliseconds(s.jmhWarmup().toMillis()))
                .measurementIterations(s.jmhIterations())
                .measurementTime(TimeValue.milliseconds(s.jmhIteration().toMillis()))
                .jvmArgsAppend("-D" + LockLatencyBenchmark.URI_PROPERTY + "=" + uri)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
        return new Runner(options.build()).run();
    }

    private static void contention(Settings s, RedisAdmin redis, Library lib, Run run) throws InterruptedException {
        int r = run.run();
        try (Contention c = new Contention(lib, redis, 4, "r" + r)) {
            if (s.includes("P3")) {
                Contention.Result p3 = c.run("p3-r" + r, 4, 8, s.p3Warmup(), s.p3Measure(), false);
                run.p3().put(lib, p3);
                Contention.HandOffs h = p3.handOffs();
                log(
                        "P3 run %d %-8s: %.0f acq/s, hand-off p50 %.0f µs p99 %.0f µs, longest wait %.0f ms, %.2f commands executed/acq;"
                                + " next holder: same thread %.0f%% (p50 %.0f µs), same client %.0f%% (%.0f µs), other client %.0f%% (%.0f µs)%s",
                        r,
                        lib.label(),
                        p3.acquisitionsPerSecond(),
                        p3.handoffP50Micros(),
                        p3.handoffP99Micros(),
                        p3.maxWaitMillis(),
                        p3.executedPerAcquisition(),
                        100 * h.sameThreadShare(),
                        h.sameThreadP50Micros(),
                        100 * h.sameClientShare(),
                        h.sameClientP50Micros(),
                        100 * h.otherClientShare(),
                        h.otherClientP50Micros(),
                        problems(p3));
            }
            if (s.includes("P4")) {
                List<Contention.Result> levels = new ArrayList<>();
                for (int n : s.p4Contenders()) {
                    int clients = Math.min(4, n);
                    Contention.Result p4 =
                            c.run("p4-r" + r + "-" + n, clients, n / clients, s.p4Warmup(), s.p4Measure(), true);
                    levels.add(p4);
                    log(
                            "P4 run %d %-8s: %2d contenders (%d x %d): %.2f client commands/acq %s, %.1f script calls/acq, %.0f acq/s under MONITOR%s",
                            r,
                            lib.label(),
                            n,
                            clients,
                            n / clients,
                            p4.commandsPerAcquisition(),
                            p4.clientCommands(),
                            p4.scriptCallsPerAcquisition(),
                            p4.acquisitionsPerSecond(),
                            problems(p4));
                }
                run.p4().put(lib, levels);
            }
        }
    }

    private static void flood(Settings s, RedisAdmin redis, Library lib, Run run) throws InterruptedException {
        WaiterFlood.Result f = WaiterFlood.run(lib, redis, s.p6Waiters(), "r" + run.run());
        run.p6().put(lib, f);
        log(
                "P6 run %d %-8s: +%d platform threads %s, +%d connections (base %d), %d pub/sub, drained in %.0f ms (median of %s)%s",
                run.run(),
                lib.label(),
                f.extraPlatformThreads(),
                f.extraThreadNames(),
                f.extraConnections(),
                f.baselineConnections(),
                f.pubSubConnections(),
                f.drainMillis(),
                f.drains().stream()
                        .map(d -> String.format("%.0f", d))
                        .collect(java.util.stream.Collectors.joining(" / ")),
                f.errors() > 0 ? ", " + f.errors() + " errors: " + f.firstError() : "");
    }

    private static String problems(Contention.Result r) {
        String s = "";
        if (r.lostUpdates() != 0) {
            s += ", " + r.lostUpdates() + " LOST UPDATES";
        }
        if (r.errors() != 0) {
            s += ", " + r.errors() + " errors (first: " + r.firstError() + ")";
        }
        return s;
    }

    private static List<WatchdogLoad.Result> watchdog(
            Settings s, RedisFixture fixture, RedisAdmin lockkitRedis, String pinning) throws Exception {
        lockkitRedis.flushAll();
        try (RedisServer second = fixture.start()) {
            if (pinning.startsWith("pinned")) {
                taskset(second.pid().orElseThrow(), 0);
            }
            log(
                    "P5: %,d locks under the watchdog for %d s, lockkit and Redisson side by side (second Redis at %s)",
                    s.p5Locks(), s.p5Window().toSeconds(), second.uri());
            List<WatchdogLoad.Result> results =
                    WatchdogLoad.run(lockkitRedis, new RedisAdmin(second), s.p5Locks(), s.p5Window());
            for (WatchdogLoad.Result r : results) {
                log(
                        "P5 %-8s: %.1f client commands/s %s, %.1f script calls/s, %d ticks, %.1f renewals/tick, round trips/tick %.2f (median %.0f, most %d), Redis CPU %.2f%%, %d lost %s",
                        r.library().label(),
                        r.clientCommandsPerSecond(),
                        r.clientCommands(),
                        r.scriptCallsPerSecond(),
                        r.renewalTicks(),
                        r.renewalsPerTick(),
                        r.roundTripsPerTick(),
                        r.medianRoundTripsPerTick(),
                        r.mostRoundTripsInATick(),
                        r.redisCpuPercent(),
                        r.lostHolds(),
                        r.tickDetail());
            }
            return results;
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

    /** Pins Redis to CPU 0 and this JVM to CPU 1 when it can; returns how things run, for the report. */
    private static String pin(Settings s, RedisServer server, int cores) {
        if (!s.pin()) {
            return "not pinned (--no-pin)";
        }
        if (cores < 2) {
            return "not pinned (one CPU)";
        }
        if (server.pid().isEmpty()) {
            return "not pinned (Redis is not a local process)";
        }
        try {
            taskset(server.pid().getAsLong(), 0);
            taskset(ProcessHandle.current().pid(), 1);
            return "pinned: Redis on CPU 0, the benchmark JVM and its JMH forks on CPU 1 (taskset)";
        } catch (IOException | RuntimeException e) {
            return "not pinned (taskset failed: " + e.getMessage() + ")";
        }
    }

    private static void taskset(long pid, int cpu) throws IOException {
        Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", Integer.toString(cpu), Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        try (InputStream in = p.getInputStream()) {
            String output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("taskset -a -p -c " + cpu + " " + pid + " failed: " + output.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static List<Library> rotated(int by) {
        List<Library> all = new ArrayList<>(Arrays.asList(Library.values()));
        java.util.Collections.rotate(all, -by);
        return all;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    private static String commit() {
        try {
            String sha = git("rev-parse", "--short", "HEAD");
            if (sha == null) {
                return "unknown";
            }
            // The results directory itself is rewritten by the run: it does not count.
            String changes = git("status", "--porcelain", "--", ".", ":(exclude)lock-benchmarks/results");
            return changes == null
                    ? sha
                    : changes.isEmpty()
                            ? sha + ", no uncommitted changes"
                            : sha + " plus uncommitted changes at the time of the run";
        } catch (IOException | RuntimeException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** A git command's trimmed output, or null when it failed. */
    private static String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("git");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.waitFor() == 0 ? out : null;
    }

    static void log(String format, Object... args) {
        double t = (System.nanoTime() - START) / 1e9;
        System.out.printf(Locale.ROOT, "[%4.0fs] %s%n", t, String.format(Locale.ROOT, format, args));
        System.out.flush();
    }
}
