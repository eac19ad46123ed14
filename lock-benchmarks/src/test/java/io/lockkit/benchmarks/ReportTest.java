package io.lockkit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.benchmarks.BenchmarkMain.Latency;
import io.lockkit.benchmarks.BenchmarkMain.Machine;
import io.lockkit.benchmarks.BenchmarkMain.Results;
import io.lockkit.benchmarks.BenchmarkMain.Run;
import io.lockkit.benchmarks.BenchmarkMain.Throughput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

    @TempDir
    Path out;

    @Test
    void writesTheTableTheChartAndTheCsvFromMedians() throws Exception {
        WatchdogLoad.Result lk = new WatchdogLoad.Result(
                Library.LOCKKIT,
                100,
                0.1,
                120,
                10,
                Map.of("evalsha", 1200L),
                20,
                12,
                "calls",
                100,
                100,
                3,
                12,
                1,
                1,
                1,
                0.5,
                0,
                List.of(100L),
                List.of("100 renewals, 1 round trips, 3.0 ms"));
        WatchdogLoad.Result rd = new WatchdogLoad.Result(
                Library.REDISSON,
                100,
                0.1,
                120,
                0.1,
                Map.of("evalsha", 12L),
                20,
                12,
                "bursts",
                100,
                100,
                Double.NaN,
                12,
                1,
                Double.NaN,
                0,
                0.2,
                0,
                List.of(1L),
                List.of());
        Results results = results(List.of(lk, rd));

        Report.write(results, out);

        String md = Files.readString(out.resolve("RESULTS.md"));
        assertThat(md)
                .contains("| P1 lock+unlock p50, 1 thread | 100 µs | 202 µs | 300 µs | 2.02× | 0.67× |")
                .contains("P1 p50 within 1.15× of the floor")
                .contains("**missed**")
                .contains("P4 flat at ≤ 3 client commands per acquisition")
                .contains(Report.COMMAND);
        DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(out.resolve("chart.svg").toFile());
        assertThat(Files.readAllLines(out.resolve("summary.csv"))).first().isEqualTo("metric,library,run,value");
    }

    @Test
    void regeneratedReportKeepsTheHandWrittenAnalysis() throws Exception {
        Results results = results(List.of());
        Report.write(results, out);
        Path file = out.resolve("RESULTS.md");
        String first = Files.readString(file);
        assertThat(Report.analysis(first)).startsWith("No analysis written");

        String analysis = "P1 is 4 µs above the floor: seven Redis commands per pair against four.\n\n- a list item";
        Files.writeString(file, first.replace(Report.analysis(first), analysis));
        Report.write(results, out);

        String second = Files.readString(file);
        assertThat(Report.analysis(second)).isEqualTo(analysis);
        assertThat(second.indexOf(analysis))
                .isGreaterThan(second.indexOf("## Goals (lockkit)"))
                .isLessThan(second.indexOf("## P3: who gets the lock next"));
    }

    @Test
    void reportWithoutMarkersHasNoAnalysis() {
        assertThat(Report.analysis("# results\n\nno markers")).isEmpty();
        assertThat(Report.analysis(Report.ANALYSIS_END + " then " + Report.ANALYSIS_START))
                .isEmpty();
    }

    private static Results results(List<WatchdogLoad.Result> p5) {
        List<Run> runs = new ArrayList<>();
        for (int r = 1; r <= 3; r++) {
            runs.add(run(r, 200 + r, 180 + r));
        }
        Machine m = new Machine(
                "test CPU",
                2,
                "pinned",
                "JDK",
                "-Xmx1g",
                "Linux",
                "Redis 7.0.15 (PATH)",
                "abc",
                "today",
                Report.COMMAND);
        return new Results(
                m, BenchmarkMain.Settings.fullRun(), runs, p5, 12.5, List.of(1.0, 2.0, 3.0), 2.0, List.of(), List.of());
    }

    private static Run run(int r, double lockkitP50, double lockkitPairs) {
        Map<Library, Latency> p1 = new EnumMap<>(Library.class);
        Map<Library, Throughput> p2 = new EnumMap<>(Library.class);
        Map<Library, Contention.Result> p3 = new EnumMap<>(Library.class);
        Map<Library, List<Contention.Result>> p4 = new EnumMap<>(Library.class);
        Map<Library, WaiterFlood.Result> p6 = new EnumMap<>(Library.class);
        for (Library lib : Library.values()) {
            double p50 = switch (lib) {
                case FLOOR -> 100;
                case LOCKKIT -> lockkitP50;
                case REDISSON -> 300;
            };
            p1.put(lib, new Latency(lib, p50, p50, 2 * p50, 3 * p50, p50, 1000));
            p2.put(lib, new Throughput(lib, lib == Library.LOCKKIT ? lockkitPairs : 200, 1));
            p3.put(lib, contention(lib, 32));
            List<Contention.Result> levels = new ArrayList<>();
            for (int n : BenchmarkMain.CONTENDERS) {
                levels.add(contention(lib, n));
            }
            p4.put(lib, levels);
            p6.put(lib, new WaiterFlood.Result(lib, 1000, 1, List.of("pubsub-thread"), 1, 5, 1, 0, 250, 0, null));
        }
        return new Run(r, List.of(Library.values()), p1, p2, p3, p4, p6);
    }

    private static Contention.Result contention(Library lib, int contenders) {
        double commands = lib == Library.LOCKKIT ? (contenders == 1 ? 2 : 3) : 2 + Math.log(contenders);
        return new Contention.Result(
                lib,
                4,
                Math.max(1, contenders / 4),
                contenders,
                10_000,
                5,
                2000,
                100,
                150,
                300,
                new Contention.HandOffs(0.2, 0.3, 0.5, 50, 100, 150),
                1,
                5,
                20,
                true,
                Map.of("evalsha", (long) (commands * 10_000)),
                commands,
                10,
                Map.of("evalsha", 1L),
                20,
                0,
                0,
                null);
    }
}
