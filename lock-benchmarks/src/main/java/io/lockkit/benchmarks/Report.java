package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchmarkMain.Latency;
import io.lockkit.benchmarks.BenchmarkMain.Results;
import io.lockkit.benchmarks.BenchmarkMain.Run;
import io.lockkit.benchmarks.BenchmarkMain.Throughput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Turns the runs into {@code RESULTS.md}, {@code chart.svg} and {@code summary.csv}: medians across runs, ratios beside them. */
final class Report {

    /** The one command that regenerates everything, as the README gives it. */
    static final String COMMAND =
            "mvn -B -q install -DskipTests -pl lock-bom,lock-benchmarks -am && mvn -B -q -pl lock-benchmarks exec:exec";

    /** Opens the hand-written analysis in {@code RESULTS.md}, which a regenerated report carries over. */
    static final String ANALYSIS_START = "<!-- analysis: written by hand, kept when the report is regenerated -->";

    /** Closes the hand-written analysis. */
    static final String ANALYSIS_END = "<!-- end of analysis -->";

    private static final Library F = Library.FLOOR;
    private static final Library L = Library.LOCKKIT;
    private static final Library R = Library.REDISSON;

    private final Results results;
    private final List<Run> runs;
    private final String analysis;

    private Report(Results results, String analysis) {
        this.results = results;
        this.runs = results.runs();
        this.analysis = analysis;
    }

    static void write(Results results, Path out) throws IOException {
        Path previous = out.resolve("RESULTS.md");
        String analysis = Files.isRegularFile(previous) ? analysis(Files.readString(previous)) : "";
        Report report = new Report(results, analysis);
        Files.createDirectories(out);
        Files.writeString(out.resolve("RESULTS.md"), report.markdown());
        Files.writeString(out.resolve("chart.svg"), report.svg());
        Files.writeString(out.resolve("summary.csv"), report.csv());
    }

    /**
     * The hand-written analysis of a report (between {@link #ANALYSIS_START} and {@link #ANALYSIS_END},
     * markers excluded), or "" when it has none.
     */
    static String analysis(String markdown) {
        int start = markdown.indexOf(ANALYSIS_START);
        int end = markdown.indexOf(ANALYSIS_END);
        if (start < 0 || end < start) {
            return "";
        }
        return markdown.substring(start + ANALYSIS_START.length(), end).strip();
    }

    // ---- medians ----

    private double median(Function<Run, Double> metric) {
        List<Double> values = new ArrayList<>();
        for (Run run : runs) {
            Double v = metric.apply(run);
            if (v != null) {
                values.add(v);
            }
        }
        return Stats.median(values);
    }

    private String perRun(Function<Run, Double> metric, Function<Double, String> format) {
        return runs.stream()
                .map(r -> {
                    Double v = metric.apply(r);
                    return v == null ? "—" : format.apply(v);
                })
                .collect(Collectors.joining(" / "));
    }

    static Double p1p50(Run r, Library lib) {
        Latency l = r.p1().get(lib);
        return l == null ? null : l.p50Micros();
    }

    static Double p1p99(Run r, Library lib) {
        Latency l = r.p1().get(lib);
        return l == null ? null : l.p99Micros();
    }

    static Double p2(Run r, Library lib) {
        Throughput t = r.p2().get(lib);
        return t == null ? null : t.pairsPerSecond();
    }

    static Double p3(Run r, Library lib, Function<Contention.Result, Double> f) {
        Contention.Result c = r.p3().get(lib);
        return c == null ? null : f.apply(c);
    }

    static Double p4(Run r, Library lib, int contenders) {
        List<Contention.Result> levels = r.p4().get(lib);
        if (levels == null) {
            return null;
        }
        return levels.stream()
                .filter(c -> c.contenders() == contenders)
                .findFirst()
                .map(Contention.Result::commandsPerAcquisition)
                .orElse(null);
    }

    static Double p4(Run r, Library lib, int contenders, Function<Contention.Result, Double> f) {
        List<Contention.Result> levels = r.p4().get(lib);
        if (levels == null) {
            return null;
        }
        return levels.stream()
                .filter(c -> c.contenders() == contenders)
                .findFirst()
                .map(f)
                .orElse(null);
    }

    static Double p6(Run r, Library lib, Function<WaiterFlood.Result, Double> f) {
        WaiterFlood.Result w = r.p6().get(lib);
        return w == null ? null : f.apply(w);
    }

    private List<Integer> contenders() {
        return runs.isEmpty() ? List.of() : results.settings().p4Contenders();
    }

    private double p4Median(Library lib, int n) {
        return median(r -> p4(r, lib, n));
    }

    private double p4Max(Library lib) {
        double max = Double.NaN;
        for (int n : contenders()) {
            double v = p4Median(lib, n);
            if (!Double.isNaN(v) && (Double.isNaN(max) || v > max)) {
                max = v;
            }
        }
        return max;
    }

    private String p4Range(Library lib) {
        List<Integer> c = contenders();
        if (c.isEmpty()) {
            return "—";
        }
        return num(p4Median(lib, c.get(0)), 2) + " → " + num(p4Median(lib, c.get(c.size() - 1)), 2);
    }

    private WatchdogLoad.Result p5(Library lib) {
        return results.p5().stream().filter(p -> p.library() == lib).findFirst().orElse(null);
    }

    // ---- formatting ----

    static String num(double v, int decimals) {
        if (Double.isNaN(v)) {
            return "—";
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    static String micros(double v) {
        return Double.isNaN(v) ? "—" : num(v, v >= 100 ? 0 : 1) + " µs";
    }

    static String millis(double v) {
        return Double.isNaN(v) ? "—" : num(v, v >= 100 ? 0 : 1) + " ms";
    }

    static String ratio(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b) || b == 0) {
            return "—";
        }
        return String.format(Locale.ROOT, "%.2f×", a / b);
    }

    private static String status(boolean measured, boolean met) {
        return !measured ? "not measured" : met ? "**met**" : "**missed**";
    }

    // ---- Markdown ----

    private String markdown() {
        BenchmarkMain.Machine m = results.machine();
        BenchmarkMain.Settings s = results.settings();
        StringBuilder md = new StringBuilder();
        md.append("# lockkit benchmarks: results\n\n");
        md.append("Generated by `")
                .append(COMMAND)
                .append("` (from the repository root), ")
                .append(m.started())
                .append(s.quick() ? ", **quick mode: short durations, not for comparison**" : "")
                .append(". The harness took ")
                .append(num(results.minutes(), 1))
                .append(" minutes. Figures are medians of ")
                .append(runs.size())
                .append(runs.size() == 1 ? " run" : " runs")
                .append(
                        " (P5: one run); ratios compare medians. Raw figures of every run are in `raw/`, a flat list in `summary.csv`.\n\n");

        md.append("## Machine\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| CPU | ").append(m.cpu()).append(", ").append(m.cores()).append(" cores online |\n");
        md.append("| Pinning | ").append(m.pinning()).append(" |\n");
        md.append("| JDK | ")
                .append(m.jdk())
                .append(" (`")
                .append(m.jvmFlags().replaceAll("-classpath \\S+", ""))
                .append("`) |\n");
        md.append("| OS | ").append(m.os()).append(" |\n");
        md.append("| Redis | ").append(m.redis()).append(" |\n");
        md.append("| Other work on the machine | other processes used ")
                .append(num(results.otherCpuPercent(), 1))
                .append(" % of the machine's CPU during the run (per run: ")
                .append(results.otherCpuPercentPerRun().stream()
                        .map(v -> num(v, 1) + " %")
                        .collect(Collectors.joining(", ")))
                .append("; busy time in `/proc/stat` less this JVM's, its JMH forks' and Redis's) |\n");
        md.append("| Libraries | lockkit 0.1.0-SNAPSHOT (commit ")
                .append(m.lockkitCommit())
                .append("), Redisson 4.7.0, Jedis 8.0.2, JMH 1.37 |\n\n");

        if (!results.failures().isEmpty()) {
            md.append("## Failures\n\nThese steps failed; their figures are missing below.\n\n");
            results.failures().forEach(f -> md.append("- ").append(f).append('\n'));
            md.append('\n');
        }
        md.append("## Summary\n\n");
        md.append(summaryTable());
        md.append("\n![lockkit, the raw floor and Redisson side by side](chart.svg)\n\n");

        md.append("## Goals (lockkit)\n\n");
        md.append(goals());

        md.append("\n## Analysis\n\n").append(ANALYSIS_START).append("\n\n");
        md.append(
                analysis.isEmpty()
                        ? "No analysis written for these figures yet: text written here is kept when the report is regenerated."
                        : analysis);
        md.append("\n\n").append(ANALYSIS_END).append("\n");

        md.append("\n## P3: who gets the lock next\n\n");
        md.append(p3Table());

        md.append("\n## P4: client commands per acquisition as contenders grow\n\n");
        md.append(p4Table());

        md.append("\n## P5: ").append(num(s.p5Locks(), 0)).append(" locks under the watchdog\n\n");
        md.append(p5Table());

        md.append("\n## P6: 1,000 threads waiting on one lock\n\n");
        md.append(p6Table());

        if (!results.diagnostics().isEmpty()) {
            md.append("\n## D: where lockkit's uncontended time goes\n\n");
            md.append(Diagnostics.markdown(results.diagnostics()));
        }

        md.append("\n## Every run\n\n");
        md.append(runsTable());

        md.append("\n## Method\n\n");
        md.append(method());
        return md.toString();
    }

    private String summaryTable() {
        StringBuilder t = new StringBuilder();
        t.append(
                "| scenario | raw floor (EVALSHA via Jedis) | lockkit | Redisson 4.7.0 `RLock` | lockkit ÷ floor | lockkit ÷ Redisson |\n");
        t.append("|---|---:|---:|---:|---:|---:|\n");
        row(t, "P1 lock+unlock p50, 1 thread", r -> p1p50(r, F), r -> p1p50(r, L), r -> p1p50(r, R), Report::micros);
        row(t, "P1 lock+unlock p99, 1 thread", r -> p1p99(r, F), r -> p1p99(r, L), r -> p1p99(r, R), Report::micros);
        row(t, "P2 pairs/s, 32 threads, distinct names", r -> p2(r, F), r -> p2(r, L), r -> p2(r, R), v -> num(v, 0));
        row(
                t,
                "P3 acquisitions/s, 4 clients × 8 threads, one lock",
                r -> p3(r, F, Contention.Result::acquisitionsPerSecond),
                r -> p3(r, L, Contention.Result::acquisitionsPerSecond),
                r -> p3(r, R, Contention.Result::acquisitionsPerSecond),
                v -> num(v, 0));
        row(
                t,
                "P3 hand-off p50 (release → next holder)",
                r -> p3(r, F, Contention.Result::handoffP50Micros),
                r -> p3(r, L, Contention.Result::handoffP50Micros),
                r -> p3(r, R, Contention.Result::handoffP50Micros),
                Report::micros);
        row(
                t,
                "P3 hand-off p99",
                r -> p3(r, F, Contention.Result::handoffP99Micros),
                r -> p3(r, L, Contention.Result::handoffP99Micros),
                r -> p3(r, R, Contention.Result::handoffP99Micros),
                Report::micros);
        row(
                t,
                "P3 longest wait",
                r -> p3(r, F, Contention.Result::maxWaitMillis),
                r -> p3(r, L, Contention.Result::maxWaitMillis),
                r -> p3(r, R, Contention.Result::maxWaitMillis),
                Report::millis);
        row(
                t,
                "P3 commands Redis executed per acquisition (client + inside scripts)",
                r -> p3(r, F, Contention.Result::executedPerAcquisition),
                r -> p3(r, L, Contention.Result::executedPerAcquisition),
                r -> p3(r, R, Contention.Result::executedPerAcquisition),
                v -> num(v, 1));
        List<Integer> c = contenders();
        if (!c.isEmpty()) {
            double fMax = p4Max(F);
            double lMax = p4Max(L);
            double rMax = p4Max(R);
            t.append("| P4 client commands per acquisition, ")
                    .append(c.get(0))
                    .append(" → ")
                    .append(c.get(c.size() - 1))
                    .append(" contenders (highest) | ")
                    .append(p4Range(F))
                    .append(" (")
                    .append(num(fMax, 2))
                    .append(") | ")
                    .append(p4Range(L))
                    .append(" (")
                    .append(num(lMax, 2))
                    .append(") | ")
                    .append(p4Range(R))
                    .append(" (")
                    .append(num(rMax, 2))
                    .append(") | ")
                    .append(ratio(p4Median(L, c.get(c.size() - 1)), p4Median(F, c.get(c.size() - 1))))
                    .append(" | ")
                    .append(ratio(p4Median(L, c.get(c.size() - 1)), p4Median(R, c.get(c.size() - 1))))
                    .append(" |\n");
        }
        WatchdogLoad.Result l5 = p5(L);
        WatchdogLoad.Result r5 = p5(R);
        if (l5 != null && r5 != null) {
            t.append("| P5 client commands/s, ")
                    .append(num(l5.locks(), 0))
                    .append(" locks held | n/a (no watchdog) | ")
                    .append(num(l5.clientCommandsPerSecond(), 1))
                    .append(" | ")
                    .append(num(r5.clientCommandsPerSecond(), 1))
                    .append(" | — | ")
                    .append(ratio(l5.clientCommandsPerSecond(), r5.clientCommandsPerSecond()))
                    .append(" |\n");
            t.append(
                            "| P5 round trips per renewal tick, one Redis node (lockkit: median; mean; most in one tick) | n/a | ")
                    .append(num(l5.medianRoundTripsPerTick(), 0))
                    .append("; ")
                    .append(num(l5.roundTripsPerTick(), 1))
                    .append("; ")
                    .append(num(l5.mostRoundTripsInATick(), 0))
                    .append(" | ")
                    .append(num(r5.roundTripsPerTick(), 1))
                    .append(" | — | ")
                    .append(ratio(l5.medianRoundTripsPerTick(), r5.roundTripsPerTick()))
                    .append(" |\n");
            t.append("| P5 Redis CPU | n/a | ")
                    .append(num(l5.redisCpuPercent(), 2))
                    .append(" % | ")
                    .append(num(r5.redisCpuPercent(), 2))
                    .append(" % | — | ")
                    .append(ratio(l5.redisCpuPercent(), r5.redisCpuPercent()))
                    .append(" |\n");
        }
        if (runs.stream().anyMatch(r -> !r.p6().isEmpty())) {
            t.append("| P6 1,000 waiters: extra platform threads / extra connections / pub/sub connections | ")
                    .append(p6Triple(F))
                    .append(" | ")
                    .append(p6Triple(L))
                    .append(" | ")
                    .append(p6Triple(R))
                    .append(" | — | — |\n");
            row(
                    t,
                    "P6 1,000 hand-offs drained in",
                    r -> p6(r, F, WaiterFlood.Result::drainMillis),
                    r -> p6(r, L, WaiterFlood.Result::drainMillis),
                    r -> p6(r, R, WaiterFlood.Result::drainMillis),
                    Report::millis);
        }
        return t.toString();
    }

    private String p6Triple(Library lib) {
        return num(median(r -> p6(r, lib, w -> (double) w.extraPlatformThreads())), 0) + " / +"
                + num(median(r -> p6(r, lib, w -> (double) w.extraConnections())), 0) + " / "
                + num(median(r -> p6(r, lib, w -> (double) w.pubSubConnections())), 0);
    }

    private void row(
            StringBuilder t,
            String label,
            Function<Run, Double> floor,
            Function<Run, Double> lockkit,
            Function<Run, Double> redisson,
            Function<Double, String> format) {
        double f = median(floor);
        double l = median(lockkit);
        double r = median(redisson);
        if (Double.isNaN(f) && Double.isNaN(l) && Double.isNaN(r)) {
            return;
        }
        t.append("| ")
                .append(label)
                .append(" | ")
                .append(format.apply(f))
                .append(" | ")
                .append(format.apply(l))
                .append(" | ")
                .append(format.apply(r))
                .append(" | ")
                .append(ratio(l, f))
                .append(" | ")
                .append(ratio(l, r))
                .append(" |\n");
    }

    private String goals() {
        StringBuilder g = new StringBuilder();
        g.append("| goal | measured | status |\n|---|---|---|\n");
        double f1 = median(r -> p1p50(r, F));
        double l1 = median(r -> p1p50(r, L));
        goal(
                g,
                "P1 p50 within 1.15× of the floor",
                ratio(l1, f1) + " (" + micros(l1) + " vs " + micros(f1) + "; 1.15× is " + micros(1.15 * f1) + ")",
                !Double.isNaN(l1 + f1),
                l1 <= 1.15 * f1,
                "latency over the goal by " + pct(l1 / (1.15 * f1) - 1));
        double f2 = median(r -> p2(r, F));
        double l2 = median(r -> p2(r, L));
        goal(
                g,
                "P2 at least 0.85× the floor's throughput",
                ratio(l2, f2) + " (" + num(l2, 0) + " vs " + num(f2, 0) + " pairs/s)",
                !Double.isNaN(l2 + f2),
                l2 >= 0.85 * f2,
                "short of the goal by " + pct(1 - l2 / (0.85 * f2)));
        double f3 = median(r -> p3(r, F, Contention.Result::acquisitionsPerSecond));
        double l3 = median(r -> p3(r, L, Contention.Result::acquisitionsPerSecond));
        double r3 = median(r -> p3(r, R, Contention.Result::acquisitionsPerSecond));
        goal(
                g,
                "P3 at least 0.9× the floor's acquisitions/s",
                ratio(l3, f3) + " (" + num(l3, 0) + " vs " + num(f3, 0) + " acq/s; " + ratio(l3, r3) + " Redisson)",
                !Double.isNaN(l3 + f3),
                l3 >= 0.9 * f3,
                "short of the goal by " + pct(1 - l3 / (0.9 * f3)));
        double fh = median(r -> p3(r, F, Contention.Result::handoffP50Micros));
        double lh = median(r -> p3(r, L, Contention.Result::handoffP50Micros));
        goal(
                g,
                "P3 hand-off p50 within 1.2× of the floor's",
                ratio(lh, fh) + " (" + micros(lh) + " vs " + micros(fh) + ")",
                !Double.isNaN(lh + fh),
                lh <= 1.2 * fh,
                "over the goal by " + pct(lh / (1.2 * fh) - 1));
        double l4 = p4Max(L);
        goal(
                g,
                "P4 flat at ≤ 3 client commands per acquisition, 1 → 64 contenders",
                p4Range(L) + ", highest " + num(l4, 2),
                !Double.isNaN(l4),
                l4 <= 3.05,
                "highest level over 3 by " + num(l4 - 3, 2) + " commands");
        WatchdogLoad.Result l5 = p5(L);
        if (l5 != null) {
            goal(
                    g,
                    "P5 one round trip per node per renewal tick",
                    "median " + num(l5.medianRoundTripsPerTick(), 0)
                            + ", most in one tick " + num(l5.mostRoundTripsInATick(), 0) + " (" + l5.renewalTicks()
                            + " ticks, "
                            + num(l5.renewalsPerTick(), 0) + " renewals per tick on average)",
                    true,
                    l5.mostRoundTripsInATick() <= 1,
                    l5.medianRoundTripsPerTick() <= 1
                            ? "every tick but "
                                    + l5.tickDetail().stream()
                                            .filter(d -> !d.contains(" 1 round trips"))
                                            .count() + " took one round trip; the exception took "
                                    + num(l5.mostRoundTripsInATick(), 0)
                            : "median over by " + num(l5.medianRoundTripsPerTick() - 1, 0));
        } else {
            goal(g, "P5 one round trip per node per renewal tick", "—", false, false, "");
        }
        double lt = median(r -> p6(r, L, w -> (double) w.extraPlatformThreads()));
        double lp = median(r -> p6(r, L, w -> (double) w.pubSubConnections()));
        double fd = median(r -> p6(r, F, WaiterFlood.Result::drainMillis));
        double ld = median(r -> p6(r, L, WaiterFlood.Result::drainMillis));
        goal(
                g,
                "P6 no extra platform threads",
                num(lt, 0) + " (" + extraNames(L) + ")",
                !Double.isNaN(lt),
                lt == 0,
                num(lt, 0) + " extra");
        goal(
                g,
                "P6 one pub/sub connection",
                num(lp, 0),
                !Double.isNaN(lp),
                lp == 1,
                num(lp, 0) + " pub/sub connections");
        goal(
                g,
                "P6 1,000 hand-offs drained faster than the floor",
                millis(ld) + " vs " + millis(fd) + " (" + ratio(ld, fd) + ")",
                !Double.isNaN(ld + fd),
                ld < fd,
                "slower by " + pct(ld / fd - 1));
        return g.toString();
    }

    private String extraNames(Library lib) {
        return runs.stream()
                .map(r -> r.p6().get(lib))
                .filter(w -> w != null)
                .findFirst()
                .map(w -> w.extraThreadNames().isEmpty()
                        ? "none"
                        : String.join(", ", w.extraThreadNames()).replaceAll("-[0-9a-z]{8,}", "-…"))
                .orElse("—");
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, "%.0f %%", 100 * v);
    }

    private static void goal(
            StringBuilder g, String goal, String measured, boolean isMeasured, boolean met, String miss) {
        g.append("| ").append(goal).append(" | ").append(measured).append(" | ").append(status(isMeasured, met));
        if (isMeasured && !met) {
            g.append(": ").append(miss);
        }
        g.append(" |\n");
    }

    private String p3Table() {
        if (runs.stream().allMatch(r -> r.p3().isEmpty())) {
            return "Not measured.\n";
        }
        StringBuilder t = new StringBuilder();
        t.append(
                        "After each release, the next holder was the releasing thread itself (it came straight back and won), another ")
                .append(
                        "thread of the same client, or a thread of another client (medians of the runs; hand-off p50 per kind). ")
                .append(
                        "lockkit hands a released lock to the oldest waiter of the releasing client first, at most `localHandOffs` ")
                .append(
                        "(8) times in a row, then to the oldest waiter overall; a waiter in the same process is woken without a ")
                .append(
                        "pub/sub hop. The floor and Redisson let every woken waiter race, the releasing thread included.\n\n");
        t.append("| | raw floor | lockkit | Redisson |\n|---|---:|---:|---:|\n");
        String[] labels = {"same thread", "same client, other thread", "other client"};
        List<Function<Contention.HandOffs, Double>> shares = List.of(
                Contention.HandOffs::sameThreadShare,
                Contention.HandOffs::sameClientShare,
                Contention.HandOffs::otherClientShare);
        List<Function<Contention.HandOffs, Double>> p50s = List.of(
                Contention.HandOffs::sameThreadP50Micros,
                Contention.HandOffs::sameClientP50Micros,
                Contention.HandOffs::otherClientP50Micros);
        for (int k = 0; k < 3; k++) {
            int kind = k;
            t.append("| ").append(labels[k]).append(" |");
            for (Library lib : Library.values()) {
                double share = median(r -> p3(r, lib, c -> shares.get(kind).apply(c.handOffs())));
                double p50 = median(r -> p3(r, lib, c -> p50s.get(kind).apply(c.handOffs())));
                t.append(' ')
                        .append(num(100 * share, 0))
                        .append(" %, p50 ")
                        .append(micros(p50))
                        .append(" |");
            }
            t.append('\n');
        }
        t.append("| longest wait p99 | ");
        for (Library lib : Library.values()) {
            t.append(millis(median(r -> p3(r, lib, Contention.Result::waitP99Millis))))
                    .append(" | ");
        }
        t.append('\n');
        return t.toString();
    }

    private String p4Table() {
        List<Integer> c = contenders();
        if (c.isEmpty() || runs.stream().allMatch(r -> r.p4().isEmpty())) {
            return "Not measured.\n";
        }
        StringBuilder t = new StringBuilder();
        t.append("Client commands per acquisition, counted with MONITOR (median of ")
                .append(runs.size())
                .append(runs.size() == 1 ? " run" : " runs")
                .append("); below them the commands the scripts ran per acquisition, ")
                .append(
                        "and acquisitions/s in the same window (MONITOR slows Redis: compare rates with P3, not these). ")
                .append(
                        "Contenders are spread over 4 clients (1 and 2 contenders: that many clients, one thread each).\n\n");
        t.append("| contenders |");
        c.forEach(n -> t.append(' ').append(n).append(" |"));
        t.append("\n|---|");
        c.forEach(n -> t.append("---:|"));
        t.append('\n');
        for (Library lib : Library.values()) {
            t.append("| **").append(lib.label()).append("**: client commands / acq |");
            c.forEach(n -> t.append(' ').append(num(p4Median(lib, n), 2)).append(" |"));
            t.append('\n');
        }
        for (Library lib : Library.values()) {
            t.append("| ").append(lib.label()).append(": commands inside scripts / acq |");
            c.forEach(n -> t.append(' ')
                    .append(num(median(r -> p4(r, lib, n, Contention.Result::scriptCallsPerAcquisition)), 1))
                    .append(" |"));
            t.append('\n');
        }
        for (Library lib : Library.values()) {
            t.append("| ").append(lib.label()).append(": acq/s under MONITOR |");
            c.forEach(n -> t.append(' ')
                    .append(num(median(r -> p4(r, lib, n, Contention.Result::acquisitionsPerSecond)), 0))
                    .append(" |"));
            t.append('\n');
        }
        t.append("\nClient commands by name (run 1):\n\n");
        for (Library lib : Library.values()) {
            t.append("- ").append(lib.label()).append(':');
            for (int n : List.of(c.get(0), c.get(c.size() - 1))) {
                runs.stream()
                        .findFirst()
                        .map(r -> r.p4().get(lib))
                        .flatMap(levels ->
                                levels.stream().filter(x -> x.contenders() == n).findFirst())
                        .ifPresent(x -> t.append(' ')
                                .append(n)
                                .append(n == 1 ? " contender: " : " contenders: ")
                                .append(perAcquisition(x.clientCommands(), x.acquisitions()))
                                .append(';'));
            }
            t.setLength(t.length() - 1);
            t.append('\n');
        }
        return t.toString();
    }

    private static String perAcquisition(Map<String, Long> commands, long acquisitions) {
        return commands.entrySet().stream()
                .map(e -> String.format(
                        Locale.ROOT,
                        "%s %.2f",
                        e.getKey().toUpperCase(Locale.ROOT),
                        acquisitions == 0 ? Double.NaN : (double) e.getValue() / acquisitions))
                .collect(Collectors.joining(", "));
    }

    private String p5Table() {
        WatchdogLoad.Result l = p5(L);
        WatchdogLoad.Result r = p5(R);
        if (l == null || r == null) {
            return "Not measured.\n";
        }
        StringBuilder t = new StringBuilder();
        t.append("Both hold ")
                .append(num(l.locks(), 0))
                .append(" locks under their watchdog (lease 30 s, renewed every 10 s) for ")
                .append(num(l.seconds(), 0))
                .append(" s, each on its own Redis, at the same time. The floor has no watchdog.\n\n");
        t.append("| | lockkit | Redisson |\n|---|---:|---:|\n");
        t.append("| client commands/s | ")
                .append(num(l.clientCommandsPerSecond(), 1))
                .append(" | ")
                .append(num(r.clientCommandsPerSecond(), 1))
                .append(" |\n");
        t.append("| client commands by name, whole window | ")
                .append(l.clientCommands())
                .append(" | ")
                .append(r.clientCommands())
                .append(" |\n");
        t.append("| script-internal calls/s | ")
                .append(num(l.scriptCallsPerSecond(), 1))
                .append(" | ")
                .append(num(r.scriptCallsPerSecond(), 1))
                .append(" |\n");
        t.append("| renewal ticks in the window | ")
                .append(l.renewalTicks())
                .append(" (")
                .append(l.ticksCounted())
                .append(") | ")
                .append(r.renewalTicks())
                .append(" (")
                .append(r.ticksCounted())
                .append(") |\n");
        t.append("| locks renewed per tick (mean / largest) | ")
                .append(num(l.renewalsPerTick(), 0))
                .append(" / ")
                .append(num(l.maxRenewalsPerTick(), 0))
                .append(" | all ")
                .append(num(r.locks(), 0))
                .append(", 100 per EVAL (`lockWatchdogBatchSize`) |\n");
        t.append("| client round trips in the window (wire count) | ")
                .append(l.roundTrips())
                .append(" | ")
                .append(r.roundTrips())
                .append(" (PINGs excluded) |\n");
        t.append("| round trips per renewal tick: mean | ")
                .append(num(l.roundTripsPerTick(), 2))
                .append(" | ")
                .append(num(r.roundTripsPerTick(), 2))
                .append(" |\n");
        t.append("| round trips per renewal tick: median / most | ")
                .append(num(l.medianRoundTripsPerTick(), 0))
                .append(" / ")
                .append(num(l.mostRoundTripsInATick(), 0))
                .append(" | — |\n");
        t.append("| mean tick duration (renew call) | ")
                .append(millis(l.meanTickMillis()))
                .append(" | — |\n");
        t.append("| Redis CPU (user + sys, % of one core) | ")
                .append(num(l.redisCpuPercent(), 2))
                .append(" % | ")
                .append(num(r.redisCpuPercent(), 2))
                .append(" % |\n");
        t.append("| holds lost | ")
                .append(l.lostHolds())
                .append(" | ")
                .append(r.lostHolds())
                .append(" (of a 1 % sample) |\n");
        t.append("| time to acquire all (8 threads) | ")
                .append(millis(l.acquireSeconds() * 1e3))
                .append(" | ")
                .append(millis(r.acquireSeconds() * 1e3))
                .append(" |\n");
        t.append("| client commands per 10 s | ")
                .append(l.clientCommandsPer10s())
                .append(" | ")
                .append(r.clientCommandsPer10s())
                .append(" |\n");
        t.append("\nlockkit's renewal ticks, in order: ")
                .append(String.join("; ", l.tickDetail()))
                .append(".\n");
        return t.toString();
    }

    private String p6Table() {
        if (runs.stream().allMatch(r -> r.p6().isEmpty())) {
            return "Not measured.\n";
        }
        StringBuilder t = new StringBuilder();
        t.append(
                "One client; the main thread holds the lock while 1,000 platform threads call `lock()`; counted once all are parked, against a baseline taken after one uncontended lock and unlock on the fresh client. Connections are counted by client name in `CLIENT LIST`.\n\n");
        t.append("| | raw floor | lockkit | Redisson |\n|---|---:|---:|---:|\n");
        t.append("| extra platform threads | ");
        for (Library lib : Library.values()) {
            t.append(num(median(r -> p6(r, lib, w -> (double) w.extraPlatformThreads())), 0))
                    .append(" (")
                    .append(extraNames(lib))
                    .append(") | ");
        }
        t.append("\n| connections before the waiters | ");
        for (Library lib : Library.values()) {
            t.append(num(median(r -> p6(r, lib, w -> (double) w.baselineConnections())), 0))
                    .append(" | ");
        }
        t.append("\n| extra connections while they wait | ");
        for (Library lib : Library.values()) {
            t.append('+')
                    .append(num(median(r -> p6(r, lib, w -> (double) w.extraConnections())), 0))
                    .append(" | ");
        }
        t.append("\n| pub/sub connections while they wait | ");
        for (Library lib : Library.values()) {
            t.append(num(median(r -> p6(r, lib, w -> (double) w.pubSubConnections())), 0))
                    .append(" | ");
        }
        t.append("\n| 1,000 hand-offs drained in (median; every run) | ");
        for (Library lib : Library.values()) {
            t.append(millis(median(r -> p6(r, lib, WaiterFlood.Result::drainMillis))))
                    .append(" (")
                    .append(perRun(r -> p6(r, lib, WaiterFlood.Result::drainMillis), v -> num(v, 0)))
                    .append(") | ");
        }
        t.append("\n| errors | ");
        for (Library lib : Library.values()) {
            t.append(num(
                            runs.stream()
                                    .mapToDouble(r -> r.p6().containsKey(lib)
                                            ? r.p6().get(lib).errors()
                                            : 0)
                                    .sum(),
                            0))
                    .append(" | ");
        }
        t.append('\n');
        return t.toString();
    }

    private String runsTable() {
        StringBuilder t = new StringBuilder();
        t.append("Each cell: run 1 / run 2 / …; library order rotated per run (")
                .append(runs.stream()
                        .map(r -> r.order().stream().map(Library::label).collect(Collectors.joining(", ")))
                        .collect(Collectors.joining("; ")))
                .append(").\n\n");
        t.append("| metric | raw floor | lockkit | Redisson |\n|---|---|---|---|\n");
        perRunRow(t, "P1 p50 (µs)", Report::p1p50, 0);
        perRunRow(t, "P1 p99 (µs)", Report::p1p99, 0);
        perRunRow(t, "P2 pairs/s", Report::p2, 0);
        perRunRow(t, "P3 acq/s", (r, lib) -> p3(r, lib, Contention.Result::acquisitionsPerSecond), 0);
        perRunRow(t, "P3 hand-off p50 (µs)", (r, lib) -> p3(r, lib, Contention.Result::handoffP50Micros), 0);
        perRunRow(t, "P3 longest wait (ms)", (r, lib) -> p3(r, lib, Contention.Result::maxWaitMillis), 0);
        perRunRow(t, "P3 lost updates", (r, lib) -> p3(r, lib, c -> (double) c.lostUpdates()), 0);
        List<Integer> c = contenders();
        if (!c.isEmpty()) {
            int top = c.get(c.size() - 1);
            perRunRow(t, "P4 commands/acq at " + top, (r, lib) -> p4(r, lib, top), 2);
        }
        perRunRow(t, "P6 drained (ms)", (r, lib) -> p6(r, lib, WaiterFlood.Result::drainMillis), 0);
        return t.toString();
    }

    interface Metric {
        Double get(Run run, Library lib);
    }

    private void perRunRow(StringBuilder t, String label, Metric metric, int decimals) {
        t.append("| ").append(label).append(" |");
        for (Library lib : Library.values()) {
            t.append(' ')
                    .append(perRun(r -> metric.get(r, lib), v -> num(v, decimals)))
                    .append(" |");
        }
        t.append('\n');
    }

    private String method() {
        BenchmarkMain.Settings s = results.settings();
        return """
                - **Clients.** Each client plays one process: its own connections and threads. lockkit is \
                `DistributedLockFactory.create(JedisLockProvider…)` with default settings (watchdog lease 30 s, 16 pooled \
                command connections + 1 pub/sub); Redisson is `Redisson.create(config)` with default settings and `RLock`; \
                the raw floor is EVALSHA through a Jedis `RedisClient` with the same pool size as lockkit (but a 30 s wait \
                for a pooled connection instead of 2 s: with 32 threads on one CPU the pool starves some threads for \
                seconds, and the floor must measure, not fail), of \
                `floor/acquire.lua` (`SET key owner NX PX 30000`, else return the TTL) and `floor/release.lua` \
                (compare-and-delete, then PUBLISH). The floor waits by retry-on-message: one pub/sub connection and thread \
                per client, a release message wakes one waiter of each client, which tries again (or after the TTL). \
                lockkit and Redisson take locks with the watchdog (`lock()` without a lease); the floor with a fixed 30 s lease.
                - **P1, P2** are JMH benchmarks (`LockLatencyBenchmark`), one fork per library and run, %d × %d ms warm-up and \
                %d × %d ms measurement; P1 in sample-time mode (p50/p99 of every lock+unlock pair), P2 throughput with 32 \
                threads, each on a name of its own.
                - **P3** runs 4 clients × 8 threads on one lock name for %d s after a %d s warm-up; each thread locks, bumps a \
                counter, unlocks and goes again at once. Hand-off is the time from the releasing thread's `unlock()` call to \
                the next holder's `lock()` return (System.nanoTime, one JVM); the longest wait is the longest `lock()` call. \
                A non-atomic counter bumped under the lock checks mutual exclusion (lost updates must be 0).
                - **P4** repeats P3 on the same clients with %s contenders (%d ms warm-up, %d ms measured each). Client \
                commands are counted with MONITOR between two ECHO markers: MONITOR shows each command as a client sent it \
                and the commands a script runs as `[0 lua]`, so it separates them exactly. `INFO commandstats` alone cannot: \
                Redis 7 counts script-internal calls there too (an HGET inside a script adds to `cmdstat_hget`), and \
                Redisson sends a plain `DEL` (of its unlock latch key) besides its scripts, which no list of \
                "commands a script cannot send" would catch. `commandstats` (reset at the window's start) gives the total \
                Redis executed instead (P3's "executed" row). MONITOR slows Redis, so P4's rates are not P3's.
                - **P5** holds %,d locks under each library's watchdog for %d s, lockkit and Redisson at the same time on two \
                Redis servers (both pinned like the first); the window starts once all are held. Client commands/s and \
                script calls/s are counted with MONITOR (light at this rate); Redis CPU comes from `INFO cpu`. Renewal ticks: lockkit's are the \
                calls of `LockProvider.renew` (counted by a forwarding provider; the factory renews every hold due within a \
                1 s window in one call); Redisson runs one renewal task per 10 s for all its locks. Round trips are counted on \
                the wire: a turn from writing to reading on one connection (a Jedis socket factory with counting streams for \
                lockkit, over the provider's default pool; a Netty handler at the head of each Redisson channel).
                - **P6** opens one client, holds the lock on the main thread, starts %,d platform threads that each lock, \
                unlock and end, and waits until all of them are parked. Extra platform threads are live threads that are \
                neither the waiters nor present in the baseline (taken after one uncontended lock+unlock on the fresh \
                client); connections are counted by client name (`CLIENT LIST`, `CLIENT LIST TYPE pubsub`). The drain time \
                runs from the holder's `unlock()` call to the last waiter's `unlock()` return; a run floods the lock %d \
                times on the same client (threads and connections are counted in the first) and reports the median drain.
                - Results are medians of the runs; the library order is rotated per run. Everything runs against one \
                local Redis over loopback, started through `lock-testkit`'s `RedisFixture` (`redis-server` on the PATH, \
                else the embedded binary), persistence off.
                """.formatted(
                        s.jmhWarmups(),
                        s.jmhWarmup().toMillis(),
                        s.jmhIterations(),
                        s.jmhIteration().toMillis(),
                        s.p3Measure().toSeconds(),
                        s.p3Warmup().toSeconds(),
                        s.p4Contenders().stream().map(String::valueOf).collect(Collectors.joining(", ")),
                        s.p4Warmup().toMillis(),
                        s.p4Measure().toMillis(),
                        s.p5Locks(),
                        s.p5Window().toSeconds(),
                        s.p6Waiters(),
                        WaiterFlood.DRAINS);
    }

    // ---- CSV ----

    private String csv() {
        StringBuilder c = new StringBuilder("metric,library,run,value\n");
        for (Run r : runs) {
            for (Library lib : Library.values()) {
                csv(c, "p1_p50_us", lib, r, p1p50(r, lib));
                csv(c, "p1_p99_us", lib, r, p1p99(r, lib));
                csv(c, "p2_pairs_per_s", lib, r, p2(r, lib));
                csv(c, "p3_acq_per_s", lib, r, p3(r, lib, Contention.Result::acquisitionsPerSecond));
                csv(c, "p3_handoff_p50_us", lib, r, p3(r, lib, Contention.Result::handoffP50Micros));
                csv(c, "p3_handoff_p99_us", lib, r, p3(r, lib, Contention.Result::handoffP99Micros));
                csv(c, "p3_max_wait_ms", lib, r, p3(r, lib, Contention.Result::maxWaitMillis));
                csv(c, "p3_executed_per_acq", lib, r, p3(r, lib, Contention.Result::executedPerAcquisition));
                for (int n : contenders()) {
                    csv(c, "p4_client_commands_per_acq_" + n, lib, r, p4(r, lib, n));
                    csv(
                            c,
                            "p4_script_calls_per_acq_" + n,
                            lib,
                            r,
                            p4(r, lib, n, Contention.Result::scriptCallsPerAcquisition));
                }
                csv(c, "p6_extra_platform_threads", lib, r, p6(r, lib, w -> (double) w.extraPlatformThreads()));
                csv(c, "p6_extra_connections", lib, r, p6(r, lib, w -> (double) w.extraConnections()));
                csv(c, "p6_pubsub_connections", lib, r, p6(r, lib, w -> (double) w.pubSubConnections()));
                csv(c, "p6_drain_ms", lib, r, p6(r, lib, WaiterFlood.Result::drainMillis));
            }
        }
        for (WatchdogLoad.Result p : results.p5()) {
            c.append("p5_client_commands_per_s,")
                    .append(p.library())
                    .append(",1,")
                    .append(p.clientCommandsPerSecond())
                    .append('\n');
            c.append("p5_round_trips_per_tick,")
                    .append(p.library())
                    .append(",1,")
                    .append(p.roundTripsPerTick())
                    .append('\n');
            c.append("p5_redis_cpu_percent,")
                    .append(p.library())
                    .append(",1,")
                    .append(p.redisCpuPercent())
                    .append('\n');
        }
        return c.toString();
    }

    private static void csv(StringBuilder c, String metric, Library lib, Run r, Double v) {
        if (v != null && !v.isNaN()) {
            c.append(metric)
                    .append(',')
                    .append(lib)
                    .append(',')
                    .append(r.run())
                    .append(',')
                    .append(v)
                    .append('\n');
        }
    }

    // ---- SVG ----

    private String svg() {
        Svg s = new Svg(980, 660);
        s.text(
                490,
                26,
                "lockkit vs the raw floor vs Redisson " + "(medians of " + runs.size()
                        + (runs.size() == 1 ? " run" : " runs") + "; "
                        + results.machine().redis().replaceAll(" \\(.*", "") + ", "
                        + results.machine().cores() + " cores)",
                15,
                "middle",
                true);
        int lx = 330;
        for (Library lib : Library.values()) {
            s.rect(lx, 40, 14, 14, Svg.color(lib));
            s.text(lx + 20, 52, lib.label(), 12, "start", false);
            lx += 120;
        }
        s.bars(20, 70, 300, 260, "P1 lock+unlock p50, µs (lower is better)", new String[] {""}, new double[][] {
            medians(Report::p1p50)
        });
        s.bars(340, 70, 300, 260, "P2 pairs/s, 32 threads (higher is better)", new String[] {""}, new double[][] {
            medians(Report::p2)
        });
        s.bars(660, 70, 300, 260, "P3 hot lock, acquisitions/s (higher is better)", new String[] {""}, new double[][] {
            medians((r, lib) -> p3(r, lib, Contention.Result::acquisitionsPerSecond))
        });
        s.bars(20, 370, 300, 260, "P3 hand-off p50, µs (lower is better)", new String[] {""}, new double[][] {
            medians((r, lib) -> p3(r, lib, Contention.Result::handoffP50Micros))
        });
        List<Integer> c = contenders();
        double[][] lines = new double[Library.values().length][c.size()];
        for (Library lib : Library.values()) {
            for (int i = 0; i < c.size(); i++) {
                lines[lib.ordinal()][i] = p4Median(lib, c.get(i));
            }
        }
        s.lines(340, 370, 300, 260, "P4 client commands per acquisition", c, lines);
        s.bars(660, 370, 300, 260, "P6 1,000 waiters drained, ms (lower is better)", new String[] {""}, new double[][] {
            medians((r, lib) -> p6(r, lib, WaiterFlood.Result::drainMillis))
        });
        return s.end();
    }

    private double[] medians(Metric metric) {
        double[] v = new double[Library.values().length];
        for (Library lib : Library.values()) {
            v[lib.ordinal()] = median(r -> metric.get(r, lib));
        }
        return v;
    }

    /** Just enough SVG: grouped bars and a line chart in panels, values printed on the marks. */
    static final class Svg {
        private final StringBuilder sb = new StringBuilder();

        Svg(int width, int height) {
            sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                    .append(width)
                    .append("\" height=\"")
                    .append(height)
                    .append("\" viewBox=\"0 0 ")
                    .append(width)
                    .append(' ')
                    .append(height)
                    .append("\" font-family=\"Helvetica, Arial, sans-serif\">\n");
            sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        }

        static String color(Library lib) {
            return switch (lib) {
                case FLOOR -> "#8c8c8c";
                case LOCKKIT -> "#1f77b4";
                case REDISSON -> "#d62728";
            };
        }

        void rect(double x, double y, double w, double h, String fill) {
            sb.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
                    x,
                    y,
                    w,
                    h,
                    fill));
        }

        void line(double x1, double y1, double x2, double y2, String stroke, double width) {
            sb.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>%n",
                    x1,
                    y1,
                    x2,
                    y2,
                    stroke,
                    width));
        }

        void text(double x, double y, String text, int size, String anchor, boolean bold) {
            sb.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s>%s</text>%n",
                    x,
                    y,
                    size,
                    anchor,
                    bold ? " font-weight=\"bold\"" : "",
                    escape(text)));
        }

        private static String escape(String s) {
            return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        }

        private static double niceMax(double max) {
            if (!(max > 0)) {
                return 1;
            }
            double p = Math.pow(10, Math.floor(Math.log10(max)));
            for (double m : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
                if (m * p >= max * 1.08) {
                    return m * p;
                }
            }
            return 10 * p;
        }

        private static String label(double v) {
            if (Double.isNaN(v)) {
                return "—";
            }
            if (v >= 100 || v == Math.rint(v)) {
                return String.format(Locale.ROOT, "%,.0f", v);
            }
            return String.format(Locale.ROOT, "%.1f", v);
        }

        private void axes(double x, double y, double w, double h, String title, double max) {
            text(x + w / 2, y + 14, title, 12, "middle", true);
            double top = y + 30;
            double bottom = y + h - 24;
            for (int i = 0; i <= 4; i++) {
                double v = max * i / 4;
                double yy = bottom - (bottom - top) * i / 4;
                line(x + 44, yy, x + w, yy, "#e5e5e5", 1);
                text(x + 40, yy + 4, label(v), 10, "end", false);
            }
            line(x + 44, bottom, x + w, bottom, "#444", 1);
        }

        void bars(double x, double y, double w, double h, String title, String[] groups, double[][] values) {
            double max = 0;
            for (double[] g : values) {
                for (double v : g) {
                    if (!Double.isNaN(v)) {
                        max = Math.max(max, v);
                    }
                }
            }
            max = niceMax(max);
            axes(x, y, w, h, title, max);
            double top = y + 30;
            double bottom = y + h - 24;
            double groupWidth = (w - 54) / groups.length;
            double barWidth = Math.min(46, (groupWidth - 16) / values[0].length);
            for (int g = 0; g < groups.length; g++) {
                double gx = x + 50 + g * groupWidth + (groupWidth - barWidth * values[g].length) / 2;
                for (int i = 0; i < values[g].length; i++) {
                    double v = values[g][i];
                    double bh = Double.isNaN(v) ? 0 : (bottom - top) * v / max;
                    rect(gx + i * barWidth + 2, bottom - bh, barWidth - 4, bh, color(Library.values()[i]));
                    text(gx + i * barWidth + barWidth / 2, bottom - bh - 4, label(v), 10, "middle", false);
                }
                if (!groups[g].isEmpty()) {
                    text(x + 50 + g * groupWidth + groupWidth / 2, bottom + 16, groups[g], 11, "middle", false);
                }
            }
        }

        void lines(double x, double y, double w, double h, String title, List<Integer> xs, double[][] values) {
            double max = 0;
            for (double[] series : values) {
                for (double v : series) {
                    if (!Double.isNaN(v)) {
                        max = Math.max(max, v);
                    }
                }
            }
            max = niceMax(max);
            axes(x, y, w, h, title, max);
            double top = y + 30;
            double bottom = y + h - 24;
            double left = x + 60;
            double right = x + w - 16;
            for (int i = 0; i < xs.size(); i++) {
                double px = xs.size() == 1 ? left : left + (right - left) * i / (xs.size() - 1);
                text(px, bottom + 16, String.valueOf(xs.get(i)), 10, "middle", false);
            }
            java.util.Set<String> firstLabels = new java.util.HashSet<>();
            for (int s = 0; s < values.length; s++) {
                StringBuilder points = new StringBuilder();
                for (int i = 0; i < xs.size(); i++) {
                    double v = values[s][i];
                    if (Double.isNaN(v)) {
                        continue;
                    }
                    double px = xs.size() == 1 ? left : left + (right - left) * i / (xs.size() - 1);
                    double py = bottom - (bottom - top) * v / max;
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                    sb.append(String.format(
                            Locale.ROOT,
                            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                            px,
                            py,
                            color(Library.values()[s])));
                    if (i == xs.size() - 1) {
                        text(px + 6, py + 4, String.format(Locale.ROOT, "%.1f", v), 10, "start", false);
                    } else if (i == 0 && firstLabels.add(String.format(Locale.ROOT, "%.1f", v))) {
                        text(px + 5, py - 6, String.format(Locale.ROOT, "%.1f", v), 10, "start", false);
                    }
                }
                sb.append(String.format(
                        Locale.ROOT,
                        "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                        points.toString().trim(),
                        color(Library.values()[s])));
            }
            text(x + w / 2 + 20, y + h - 2, "contenders (4 clients)", 10, "middle", false);
        }

        String end() {
            return sb.append("</svg>\n").toString();
        }
    }
}
