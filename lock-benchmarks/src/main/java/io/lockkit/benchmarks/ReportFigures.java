package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchmarkMain.Latency;
import io.lockkit.benchmarks.BenchmarkMain.Results;
import io.lockkit.benchmarks.BenchmarkMain.Run;
import io.lockkit.benchmarks.BenchmarkMain.Throughput;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The figures a report shows, taken from the runs: one figure of a run ({@code p1p50(run, lib)}
 * and the like; null when the run did not measure it), its median across the runs (NaN when none
 * did), and the formats the report writes them in ("—" for a missing figure). Immutable.
 */
final class ReportFigures {

    private final Results results;
    private final List<Run> runs;

    ReportFigures(Results results) {
        this.results = results;
        this.runs = results.runs();
    }

    Results results() {
        return results;
    }

    List<Run> runs() {
        return runs;
    }

    /** One figure of each run, read by {@link #median(Function)} and the per-run rows. */
    interface Metric {
        Double get(Run run, Library lib);
    }

    // ---- medians ----

    double median(Function<Run, Double> metric) {
        List<Double> values = new ArrayList<>();
        for (Run run : runs) {
            Double v = metric.apply(run);
            if (v != null) {
                values.add(v);
            }
        }
        return Stats.median(values);
    }

    /** The figure of every run, "run 1 / run 2 / …". */
    String perRun(Function<Run, Double> metric, Function<Double, String> format) {
        return runs.stream()
                .map(r -> {
                    Double v = metric.apply(r);
                    return v == null ? "—" : format.apply(v);
                })
                .collect(Collectors.joining(" / "));
    }

    double[] medians(Metric metric) {
        double[] v = new double[Library.values().length];
        for (Library lib : Library.values()) {
            v[lib.ordinal()] = median(r -> metric.get(r, lib));
        }
        return v;
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
        return p4(r, lib, contenders, Contention.Result::commandsPerAcquisition);
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

    /** P4's contender levels, none when nothing ran. */
    List<Integer> contenders() {
        return runs.isEmpty() ? List.of() : results.settings().p4Contenders();
    }

    double p4Median(Library lib, int n) {
        return median(r -> p4(r, lib, n));
    }

    double p4Max(Library lib) {
        double max = Double.NaN;
        for (int n : contenders()) {
            double v = p4Median(lib, n);
            if (!Double.isNaN(v) && (Double.isNaN(max) || v > max)) {
                max = v;
            }
        }
        return max;
    }

    String p4Range(Library lib) {
        List<Integer> c = contenders();
        if (c.isEmpty()) {
            return "—";
        }
        return num(p4Median(lib, c.get(0)), 2) + " → " + num(p4Median(lib, c.get(c.size() - 1)), 2);
    }

    WatchdogLoad.Result p5(Library lib) {
        return results.p5().stream().filter(p -> p.library() == lib).findFirst().orElse(null);
    }

    /** The extra threads P6 found for {@code lib} in the first run that has them, ids shortened. */
    String extraNames(Library lib) {
        return runs.stream()
                .map(r -> r.p6().get(lib))
                .filter(w -> w != null)
                .findFirst()
                .map(w -> w.extraThreadNames().isEmpty()
                        ? "none"
                        : String.join(", ", w.extraThreadNames()).replaceAll("-[0-9a-z]{8,}", "-…"))
                .orElse("—");
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

    static String pct(double v) {
        return String.format(Locale.ROOT, "%.0f %%", 100 * v);
    }

    /** "1 run" or "3 runs". */
    String runCount() {
        return runs.size() + (runs.size() == 1 ? " run" : " runs");
    }
}
