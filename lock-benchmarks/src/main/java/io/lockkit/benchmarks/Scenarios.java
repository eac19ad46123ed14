package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchmarkMain.Latency;
import io.lockkit.benchmarks.BenchmarkMain.Run;
import io.lockkit.benchmarks.BenchmarkMain.Settings;
import io.lockkit.benchmarks.BenchmarkMain.Throughput;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
 * The scenarios {@link BenchmarkMain} runs for one library and run: P1 and P2 as JMH forks, P3 and
 * P4 (contention), P6 (a flood of waiters) and P5 (the watchdogs side by side), each adding its
 * figures to the {@link Run} (P5 returns them). Called from the harness's one thread.
 */
final class Scenarios {

    private Scenarios() {}

    static void latency(Settings s, String uri, Library library, Run run) throws RunnerException {
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
            BenchmarkMain.log(
                    "P1 run %d %-8s: p50 %.0f µs, p99 %.0f µs (%d samples)",
                    run.run(), lib.label(), l.p50Micros(), l.p99Micros(), l.samples());
        }
    }

    static void throughput(Settings s, String uri, Library library, Run run) throws RunnerException {
        for (RunResult r : jmh(s, uri, library, "p2DistinctNames")) {
            Library lib = Library.valueOf(r.getParams().getParam("library"));
            Result<?> p = r.getPrimaryResult();
            Throughput t = new Throughput(lib, p.getScore(), p.getScoreError());
            run.p2().put(lib, t);
            BenchmarkMain.log("P2 run %d %-8s: %.0f pairs/s", run.run(), lib.label(), t.pairsPerSecond());
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

    static void contention(Settings s, RedisAdmin redis, Library lib, Run run) throws InterruptedException {
        int r = run.run();
        try (Contention c = new Contention(lib, redis, 4, "r" + r)) {
            if (s.includes("P3")) {
                Contention.Result p3 = c.run("p3-r" + r, 4, 8, s.p3Warmup(), s.p3Measure(), false);
                run.p3().put(lib, p3);
                Contention.HandOffs h = p3.handOffs();
                BenchmarkMain.log(
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
                    BenchmarkMain.log(
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

    static void flood(Settings s, RedisAdmin redis, Library lib, Run run) throws InterruptedException {
        WaiterFlood.Result f = WaiterFlood.run(lib, redis, s.p6Waiters(), "r" + run.run());
        run.p6().put(lib, f);
        BenchmarkMain.log(
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

    static List<WatchdogLoad.Result> watchdog(Settings s, RedisFixture fixture, RedisAdmin lockkitRedis, String pinning)
            throws Exception {
        lockkitRedis.flushAll();
        try (RedisServer second = fixture.start()) {
            if (pinning.startsWith("pinned")) {
                MachineFacts.taskset(second.pid().orElseThrow(), 0);
            }
            BenchmarkMain.log(
                    "P5: %,d locks under the watchdog for %d s, lockkit and Redisson side by side (second Redis at %s)",
                    s.p5Locks(), s.p5Window().toSeconds(), second.uri());
            List<WatchdogLoad.Result> results =
                    WatchdogLoad.run(lockkitRedis, new RedisAdmin(second), s.p5Locks(), s.p5Window());
            for (WatchdogLoad.Result r : results) {
                BenchmarkMain.log(
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
}
