package io.lockkit.benchmarks;

import static io.lockkit.benchmarks.ReportFigures.num;
import static io.lockkit.benchmarks.ReportFigures.p3;
import static io.lockkit.benchmarks.ReportFigures.p4;
import static io.lockkit.benchmarks.ReportFigures.p6;

import io.lockkit.benchmarks.BenchmarkMain.Results;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Turns the runs into {@code RESULTS.md}, {@code chart.svg} and {@code summary.csv}: medians across
 * runs, ratios beside them. The sections' tables are {@link SummaryTables},
 * {@link DetailTables} and {@link WatchdogTable}, on {@link TextTable}; a regenerated report keeps
 * the hand-written analysis of the one it replaces.
 */
final class Report {

    /** The one command that regenerates everything, as the README gives it. */
    static final String COMMAND =
            "mvn -B -q install -DskipTests -pl lock-bom,lock-benchmarks -am && mvn -B -q -pl lock-benchmarks exec:exec";

    /** Opens the hand-written analysis in {@code RESULTS.md}, which a regenerated report carries over. */
    static final String ANALYSIS_START = "<!-- analysis: written by hand, kept when the report is regenerated -->";

    /** Closes the hand-written analysis. */
    static final String ANALYSIS_END = "<!-- end of analysis -->";

    private final ReportFigures f;
    private final String analysis;

    private Report(Results results, String analysis) {
        this.f = new ReportFigures(results);
        this.analysis = analysis;
    }

    static void write(Results results, Path out) throws IOException {
        Path previous = out.resolve("RESULTS.md");
        String analysis = Files.isRegularFile(previous) ? analysis(Files.readString(previous)) : "";
        Report report = new Report(results, analysis);
        Files.createDirectories(out);
        Files.writeString(out.resolve("RESULTS.md"), report.markdown());
        Files.writeString(out.resolve("chart.svg"), ReportChart.write(report.f));
        Files.writeString(out.resolve("summary.csv"), ReportCsv.write(report.f));
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

    private String markdown() {
        Results results = f.results();
        StringBuilder md = new StringBuilder();
        md.append(header());
        if (!results.failures().isEmpty()) {
            md.append("## Failures\n\nThese steps failed; their figures are missing below.\n\n");
            results.failures()
                    .forEach(failure -> md.append("- ").append(failure).append('\n'));
            md.append('\n');
        }
        md.append("## Summary\n\n");
        md.append(new SummaryTables(f).summary());
        md.append("\n![lockkit, the raw floor and Redisson side by side](chart.svg)\n\n");
        md.append("## Goals (lockkit)\n\n");
        md.append(new SummaryTables(f).goals());
        md.append("\n## Analysis\n\n").append(ANALYSIS_START).append("\n\n");
        md.append(
                analysis.isEmpty()
                        ? "No analysis written for these figures yet: text written here is kept when the report is regenerated."
                        : analysis);
        md.append("\n\n").append(ANALYSIS_END).append("\n");
        DetailTables details = new DetailTables(f);
        md.append("\n## P3: who gets the lock next\n\n").append(details.handOffs());
        md.append("\n## P4: client commands per acquisition as contenders grow\n\n")
                .append(details.commandsPerLevel());
        md.append("\n## P5: ")
                .append(num(results.settings().p5Locks(), 0))
                .append(" locks under the watchdog\n\n")
                .append(new WatchdogTable(f).markdown());
        md.append("\n## P6: 1,000 threads waiting on one lock\n\n").append(details.waiterFlood());
        if (!results.diagnostics().isEmpty()) {
            md.append("\n## D: where lockkit's uncontended time goes\n\n");
            md.append(Diagnostics.markdown(results.diagnostics()));
        }
        md.append("\n## Every run\n\n").append(runsTable());
        md.append("\n## Method\n\n").append(ReportMethod.markdown(results.settings()));
        return md.toString();
    }

    /** The title, how the report was made, and the machine it ran on. */
    private String header() {
        BenchmarkMain.Machine m = f.results().machine();
        Results results = f.results();
        StringBuilder md = new StringBuilder();
        md.append("# lockkit benchmarks: results\n\n");
        md.append("Generated by `")
                .append(COMMAND)
                .append("` (from the repository root), ")
                .append(m.started())
                .append(results.settings().quick() ? ", **quick mode: short durations, not for comparison**" : "")
                .append(". The harness took ")
                .append(num(results.minutes(), 1))
                .append(" minutes. Figures are medians of ")
                .append(f.runCount())
                .append(
                        " (P5: one run); ratios compare medians. Raw figures of every run are in `raw/`, a flat list in `summary.csv`.\n\n");
        md.append("## Machine\n\n");
        TextTable machine = TextTable.of("", "")
                .row("CPU", m.cpu() + ", " + m.cores() + " cores online")
                .row("Pinning", m.pinning())
                .row("JDK", m.jdk() + " (`" + m.jvmFlags().replaceAll("-classpath \\S+", "") + "`)")
                .row("OS", m.os())
                .row("Redis", m.redis())
                .row(
                        "Other work on the machine",
                        "other processes used " + num(results.otherCpuPercent(), 1)
                                + " % of the machine's CPU during the run (per run: "
                                + results.otherCpuPercentPerRun().stream()
                                        .map(v -> num(v, 1) + " %")
                                        .collect(Collectors.joining(", "))
                                + "; busy time in `/proc/stat` less this JVM's, its JMH forks' and Redis's)")
                .row(
                        "Libraries",
                        "lockkit 0.1.0-SNAPSHOT (commit " + m.lockkitCommit()
                                + "), Redisson 4.7.0, Jedis 8.0.2, JMH 1.37");
        return md.append(machine.markdown()).append('\n').toString();
    }

    private String runsTable() {
        String intro = "Each cell: run 1 / run 2 / …; library order rotated per run ("
                + f.runs().stream()
                        .map(r -> r.order().stream().map(Library::label).collect(Collectors.joining(", ")))
                        .collect(Collectors.joining("; "))
                + ").\n\n";
        TextTable t = TextTable.of("metric", "raw floor", "lockkit", "Redisson");
        perRunRow(t, "P1 p50 (µs)", ReportFigures::p1p50, 0);
        perRunRow(t, "P1 p99 (µs)", ReportFigures::p1p99, 0);
        perRunRow(t, "P2 pairs/s", ReportFigures::p2, 0);
        perRunRow(t, "P3 acq/s", (r, lib) -> p3(r, lib, Contention.Result::acquisitionsPerSecond), 0);
        perRunRow(t, "P3 hand-off p50 (µs)", (r, lib) -> p3(r, lib, Contention.Result::handoffP50Micros), 0);
        perRunRow(t, "P3 longest wait (ms)", (r, lib) -> p3(r, lib, Contention.Result::maxWaitMillis), 0);
        perRunRow(t, "P3 lost updates", (r, lib) -> p3(r, lib, c -> (double) c.lostUpdates()), 0);
        List<Integer> c = f.contenders();
        if (!c.isEmpty()) {
            int top = c.get(c.size() - 1);
            perRunRow(t, "P4 commands/acq at " + top, (r, lib) -> p4(r, lib, top), 2);
        }
        perRunRow(t, "P6 drained (ms)", (r, lib) -> p6(r, lib, WaiterFlood.Result::drainMillis), 0);
        return intro + t.markdown();
    }

    private void perRunRow(TextTable t, String label, ReportFigures.Metric metric, int decimals) {
        List<String> cells = new ArrayList<>(List.of(label));
        for (Library lib : Library.values()) {
            cells.add(f.perRun(r -> metric.get(r, lib), v -> num(v, decimals)));
        }
        t.row(cells);
    }
}
