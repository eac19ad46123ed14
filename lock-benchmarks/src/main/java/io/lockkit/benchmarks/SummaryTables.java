package io.lockkit.benchmarks;

import static io.lockkit.benchmarks.ReportFigures.num;
import static io.lockkit.benchmarks.ReportFigures.p3;
import static io.lockkit.benchmarks.ReportFigures.p6;
import static io.lockkit.benchmarks.ReportFigures.ratio;

import java.util.List;
import java.util.function.Function;

/**
 * The report's first table: each scenario's median for the floor, lockkit and Redisson, and
 * lockkit's ratios to the other two. A scenario no run measured is left out. Immutable.
 */
final class SummaryTables {

    private static final Library F = Library.FLOOR;
    private static final Library L = Library.LOCKKIT;
    private static final Library R = Library.REDISSON;

    private final ReportFigures f;

    SummaryTables(ReportFigures figures) {
        this.f = figures;
    }

    String summary() {
        TextTable t = TextTable.of(
                        "scenario",
                        "raw floor (EVALSHA via Jedis)",
                        "lockkit",
                        "Redisson 4.7.0 `RLock`",
                        "lockkit ÷ floor",
                        "lockkit ÷ Redisson")
                .rightFrom(1);
        row(t, "P1 lock+unlock p50, 1 thread", ReportFigures::p1p50, ReportFigures::micros);
        row(t, "P1 lock+unlock p99, 1 thread", ReportFigures::p1p99, ReportFigures::micros);
        row(t, "P2 pairs/s, 32 threads, distinct names", ReportFigures::p2, v -> num(v, 0));
        row(
                t,
                "P3 acquisitions/s, 4 clients × 8 threads, one lock",
                (r, lib) -> p3(r, lib, Contention.Result::acquisitionsPerSecond),
                v -> num(v, 0));
        row(
                t,
                "P3 hand-off p50 (release → next holder)",
                (r, lib) -> p3(r, lib, Contention.Result::handoffP50Micros),
                ReportFigures::micros);
        row(t, "P3 hand-off p99", (r, lib) -> p3(r, lib, Contention.Result::handoffP99Micros), ReportFigures::micros);
        row(t, "P3 longest wait", (r, lib) -> p3(r, lib, Contention.Result::maxWaitMillis), ReportFigures::millis);
        row(
                t,
                "P3 commands Redis executed per acquisition (client + inside scripts)",
                (r, lib) -> p3(r, lib, Contention.Result::executedPerAcquisition),
                v -> num(v, 1));
        p4Row(t);
        p5Rows(t);
        if (f.runs().stream().anyMatch(r -> !r.p6().isEmpty())) {
            t.row(
                    "P6 1,000 waiters: extra platform threads / extra connections / pub/sub connections",
                    p6Triple(F),
                    p6Triple(L),
                    p6Triple(R),
                    "—",
                    "—");
            row(
                    t,
                    "P6 1,000 hand-offs drained in",
                    (r, lib) -> p6(r, lib, WaiterFlood.Result::drainMillis),
                    ReportFigures::millis);
        }
        return t.markdown();
    }

    /** A row of the three medians and lockkit's two ratios; none when no run measured the figure. */
    private void row(TextTable t, String label, ReportFigures.Metric metric, Function<Double, String> format) {
        double fl = f.median(r -> metric.get(r, F));
        double lk = f.median(r -> metric.get(r, L));
        double rd = f.median(r -> metric.get(r, R));
        if (Double.isNaN(fl) && Double.isNaN(lk) && Double.isNaN(rd)) {
            return;
        }
        t.row(label, format.apply(fl), format.apply(lk), format.apply(rd), ratio(lk, fl), ratio(lk, rd));
    }

    private void p4Row(TextTable t) {
        List<Integer> c = f.contenders();
        if (c.isEmpty()) {
            return;
        }
        int top = c.get(c.size() - 1);
        t.row(
                "P4 client commands per acquisition, " + c.get(0) + " → " + top + " contenders (highest)",
                f.p4Range(F) + " (" + num(f.p4Max(F), 2) + ")",
                f.p4Range(L) + " (" + num(f.p4Max(L), 2) + ")",
                f.p4Range(R) + " (" + num(f.p4Max(R), 2) + ")",
                ratio(f.p4Median(L, top), f.p4Median(F, top)),
                ratio(f.p4Median(L, top), f.p4Median(R, top)));
    }

    private void p5Rows(TextTable t) {
        WatchdogLoad.Result l5 = f.p5(L);
        WatchdogLoad.Result r5 = f.p5(R);
        if (l5 == null || r5 == null) {
            return;
        }
        t.row(
                "P5 client commands/s, " + num(l5.locks(), 0) + " locks held",
                "n/a (no watchdog)",
                num(l5.clientCommandsPerSecond(), 1),
                num(r5.clientCommandsPerSecond(), 1),
                "—",
                ratio(l5.clientCommandsPerSecond(), r5.clientCommandsPerSecond()));
        t.row(
                "P5 round trips per renewal tick, one Redis node (lockkit: median; mean; most in one tick)",
                "n/a",
                num(l5.medianRoundTripsPerTick(), 0) + "; " + num(l5.roundTripsPerTick(), 1) + "; "
                        + num(l5.mostRoundTripsInATick(), 0),
                num(r5.roundTripsPerTick(), 1),
                "—",
                ratio(l5.medianRoundTripsPerTick(), r5.roundTripsPerTick()));
        t.row(
                "P5 Redis CPU",
                "n/a",
                num(l5.redisCpuPercent(), 2) + " %",
                num(r5.redisCpuPercent(), 2) + " %",
                "—",
                ratio(l5.redisCpuPercent(), r5.redisCpuPercent()));
    }

    private String p6Triple(Library lib) {
        return num(f.median(r -> p6(r, lib, w -> (double) w.extraPlatformThreads())), 0) + " / +"
                + num(f.median(r -> p6(r, lib, w -> (double) w.extraConnections())), 0) + " / "
                + num(f.median(r -> p6(r, lib, w -> (double) w.pubSubConnections())), 0);
    }
}
