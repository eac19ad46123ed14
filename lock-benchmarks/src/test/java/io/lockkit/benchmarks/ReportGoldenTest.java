package io.lockkit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.benchmarks.BenchmarkMain.Latency;
import io.lockkit.benchmarks.BenchmarkMain.Machine;
import io.lockkit.benchmarks.BenchmarkMain.Results;
import io.lockkit.benchmarks.BenchmarkMain.Run;
import io.lockkit.benchmarks.BenchmarkMain.Settings;
import io.lockkit.benchmarks.BenchmarkMain.Throughput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The report's three files, to the byte, for fixed figures that reach every section and format
 * (varied values, missing ones, a failure, diagnostics; and an empty run): the files under
 * {@code src/test/resources/report-golden/} were written by the report before its tables moved onto
 * {@link TextTable}, and differ from that only in the trailing blank the old code left on seven
 * table rows. A change to the report's output shows here as a diff; when it is meant, write the
 * files again with {@code -Dreport.golden.write=<dir>} and review them.
 */
class ReportGoldenTest {

    private static final List<String> FILES = List.of("RESULTS.md", "chart.svg", "summary.csv");

    @TempDir
    Path out;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"full", "quick", "empty"})
    void reportIsByteForByteTheGoldenOne(String variant) throws IOException {
        Report.write(results(variant), out);

        String rewrite = System.getProperty("report.golden.write");
        for (String file : FILES) {
            String written = Files.readString(out.resolve(file));
            if (rewrite != null) {
                Path target = Path.of(rewrite, variant, file);
                Files.createDirectories(target.getParent());
                Files.writeString(target, written);
                continue;
            }
            assertThat(written).as(variant + "/" + file).isEqualTo(golden(variant + "/" + file));
        }
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = ReportGoldenTest.class.getResourceAsStream("/report-golden/" + name)) {
            assertThat(in).as("golden file " + name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static Results results(String variant) {
        Machine m = new Machine(
                "test CPU",
                2,
                "Redis on CPU 0, JVM on CPU 1",
                "JDK 17.0.1",
                "-Xmx1g -classpath /somewhere/lib",
                "Linux 6.1",
                "Redis 7.0.15 (PATH)",
                "abc1234",
                "2026-01-01T00:00:00Z",
                Report.COMMAND);
        if (variant.equals("empty")) {
            return new Results(m, Settings.fullRun(), List.of(), List.of(), 0.5, List.of(), 0, List.of(), List.of());
        }
        boolean quick = variant.equals("quick");
        Settings settings = quick ? Settings.quickRun() : Settings.fullRun();
        Random random = new Random(quick ? 7 : 42);
        List<Run> runs = new ArrayList<>();
        for (int r = 1; r <= settings.runs(); r++) {
            runs.add(run(r, settings, random, !quick && r == 2));
        }
        List<WatchdogLoad.Result> p5 =
                quick ? List.of() : List.of(p5(Library.LOCKKIT, random), p5(Library.REDISSON, random));
        List<Diagnostics.Row> diagnostics = quick
                ? List.of()
                : List.of(
                        new Diagnostics.Row("lockkit", 1, 21_345.6, 46.8, 12.3, 4.5, 30.1, 2.2, 26.0, 64.2),
                        new Diagnostics.Row("floor", 32, 64_674.2, 22.6, 8.1, 2.0, 11.9, 0.7, 52.3, 77.0));
        List<String> failures = quick ? List.of() : List.of("P6 for Redisson: timed out after 60 s");
        return new Results(
                m, settings, runs, p5, quick ? 3.2 : 12.5, List.of(1.5, 22.25, 3.0), 8.9, diagnostics, failures);
    }

    private static Run run(int r, Settings settings, Random random, boolean redissonMissing) {
        Map<Library, Latency> p1 = new EnumMap<>(Library.class);
        Map<Library, Throughput> p2 = new EnumMap<>(Library.class);
        Map<Library, Contention.Result> p3 = new EnumMap<>(Library.class);
        Map<Library, List<Contention.Result>> p4 = new EnumMap<>(Library.class);
        Map<Library, WaiterFlood.Result> p6 = new EnumMap<>(Library.class);
        for (Library lib : Library.values()) {
            double p50 = 20 + 120 * random.nextDouble();
            p1.put(lib, new Latency(lib, p50, 1.3 * p50, 3.1 * p50, 9 * p50, 1.1 * p50, 1000));
            p2.put(lib, new Throughput(lib, 5_000 + 90_000 * random.nextDouble(), 1));
            if (redissonMissing && lib == Library.REDISSON) {
                continue;
            }
            p3.put(lib, contention(lib, 32, random));
            List<Contention.Result> levels = new ArrayList<>();
            for (int n : settings.p4Contenders()) {
                levels.add(contention(lib, n, random));
            }
            p4.put(lib, levels);
            p6.put(
                    lib,
                    new WaiterFlood.Result(
                            lib,
                            1000,
                            lib == Library.FLOOR ? 1 : 0,
                            lib == Library.FLOOR ? List.of("floor-pubsub-1a2b3c4d5e") : List.of(),
                            1,
                            lib == Library.FLOOR ? 16 : 1,
                            1,
                            0,
                            40 + 200 * random.nextDouble(),
                            0,
                            null));
        }
        List<Library> order = new ArrayList<>(List.of(Library.values()));
        java.util.Collections.rotate(order, r);
        return new Run(r, order, p1, p2, p3, p4, p6);
    }

    private static Contention.Result contention(Library lib, int contenders, Random random) {
        double commands = 2 + 6 * random.nextDouble();
        long acquisitions = 5_000 + random.nextInt(20_000);
        Map<String, Long> client = new LinkedHashMap<>();
        client.put("evalsha", (long) (acquisitions * commands * 0.7));
        client.put("publish", acquisitions / 3);
        return new Contention.Result(
                lib,
                4,
                Math.max(1, contenders / 4),
                contenders,
                acquisitions,
                5,
                acquisitions / 5.0,
                30 + 150 * random.nextDouble(),
                90 + 300 * random.nextDouble(),
                100 + 900 * random.nextDouble(),
                new Contention.HandOffs(
                        random.nextDouble() / 3,
                        random.nextDouble() / 3,
                        random.nextDouble() / 3,
                        10 + 50 * random.nextDouble(),
                        20 + 100 * random.nextDouble(),
                        40 + 400 * random.nextDouble()),
                0.5 + random.nextDouble(),
                5 + 20 * random.nextDouble(),
                10 + 90 * random.nextDouble(),
                true,
                client,
                commands,
                5 + 10 * random.nextDouble(),
                Map.of("evalsha", acquisitions),
                12 + 20 * random.nextDouble(),
                0,
                0,
                null);
    }

    private static WatchdogLoad.Result p5(Library lib, Random random) {
        boolean lk = lib == Library.LOCKKIT;
        Map<String, Long> commands = new LinkedHashMap<>();
        commands.put("evalsha", lk ? 120L : 1200L);
        commands.put("ping", 3L);
        return new WatchdogLoad.Result(
                lib,
                10_000,
                2.5 + random.nextDouble(),
                120,
                10 + random.nextDouble(),
                commands,
                20 * random.nextDouble(),
                12,
                lk ? "calls" : "bursts",
                833.3,
                1000,
                lk ? 3.25 : Double.NaN,
                lk ? 12 : 1202,
                lk ? 1 : 100.2,
                lk ? 1 : Double.NaN,
                lk ? 2 : 0,
                0.5 + random.nextDouble(),
                0,
                List.of(100L, 98L, 101L),
                lk ? List.of("833 renewals, 1 round trips, 3.0 ms", "834 renewals, 2 round trips, 4.1 ms") : List.of());
    }
}
