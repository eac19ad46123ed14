package io.lockkit.benchmarks;

import static io.lockkit.benchmarks.ReportFigures.micros;
import static io.lockkit.benchmarks.ReportFigures.millis;
import static io.lockkit.benchmarks.ReportFigures.num;
import static io.lockkit.benchmarks.ReportFigures.p1p50;
import static io.lockkit.benchmarks.ReportFigures.p2;
import static io.lockkit.benchmarks.ReportFigures.p3;
import static io.lockkit.benchmarks.ReportFigures.p6;
import static io.lockkit.benchmarks.ReportFigures.pct;
import static io.lockkit.benchmarks.ReportFigures.ratio;

import java.util.List;
import java.util.function.Function;

/**
 * The report's first two tables: each scenario's median for the floor, lockkit and Redisson with
 * lockkit's ratios to the other two (a scenario no run measured is left out), and lockkit's goals.
 * Immutable.
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

    /** lockkit's goals, each with what was measured and whether it was met, missed (and by how much) or not measured. */
    String goals() {
        TextTable g = TextTable.of("goal", "measured", "status");
        latencyAndThroughput(g);
        double l4 = f.p4Max(L);
        goal(
                g,
                "P4 flat at ≤ 3 client commands per acquisition, 1 → 64 contenders",
                f.p4Range(L) + ", highest " + num(l4, 2),
                !Double.isNaN(l4),
                l4 <= 3.05,
                "highest level over 3 by " + num(l4 - 3, 2) + " commands");
        watchdog(g);
        waiters(g);
        return g.markdown();
    }

    private void latencyAndThroughput(TextTable g) {
        double f1 = f.median(r -> p1p50(r, F));
        double l1 = f.median(r -> p1p50(r, L));
        goal(
                g,
                "P1 p50 within 1.15× of the floor",
                ratio(l1, f1) + " (" + micros(l1) + " vs " + micros(f1) + "; 1.15× is " + micros(1.15 * f1) + ")",
                !Double.isNaN(l1 + f1),
                l1 <= 1.15 * f1,
                "latency over the goal by " + pct(l1 / (1.15 * f1) - 1));
        double f2 = f.median(r -> p2(r, F));
        double l2 = f.median(r -> p2(r, L));
        goal(
                g,
                "P2 at least 0.85× the floor's throughput",
                ratio(l2, f2) + " (" + num(l2, 0) + " vs " + num(f2, 0) + " pairs/s)",
                !Double.isNaN(l2 + f2),
                l2 >= 0.85 * f2,
                "short of the goal by " + pct(1 - l2 / (0.85 * f2)));
        double f3 = f.median(r -> p3(r, F, Contention.Result::acquisitionsPerSecond));
        double l3 = f.median(r -> p3(r, L, Contention.Result::acquisitionsPerSecond));
        double r3 = f.median(r -> p3(r, R, Contention.Result::acquisitionsPerSecond));
        goal(
                g,
                "P3 at least 0.9× the floor's acquisitions/s",
                ratio(l3, f3) + " (" + num(l3, 0) + " vs " + num(f3, 0) + " acq/s; " + ratio(l3, r3) + " Redisson)",
                !Double.isNaN(l3 + f3),
                l3 >= 0.9 * f3,
                "short of the goal by " + pct(1 - l3 / (0.9 * f3)));
        double fh = f.median(r -> p3(r, F, Contention.Result::handoffP50Micros));
        double lh = f.median(r -> p3(r, L, Contention.Result::handoffP50Micros));
        goal(
                g,
                "P3 hand-off p50 within 1.2× of the floor's",
                ratio(lh, fh) + " (" + micros(lh) + " vs " + micros(fh) + ")",
                !Double.isNaN(lh + fh),
                lh <= 1.2 * fh,
                "over the goal by " + pct(lh / (1.2 * fh) - 1));
    }

    private void watchdog(TextTable g) {
        WatchdogLoad.Result l5 = f.p5(L);
        if (l5 == null) {
            goal(g, "P5 one round trip per node per renewal tick", "—", false, false, "");
            return;
        }
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
    }

    private void waiters(TextTable g) {
        double lt = f.median(r -> p6(r, L, w -> (double) w.extraPlatformThreads()));
        double lp = f.median(r -> p6(r, L, w -> (double) w.pubSubConnections()));
        double fd = f.median(r -> p6(r, F, WaiterFlood.Result::drainMillis));
        double ld = f.median(r -> p6(r, L, WaiterFlood.Result::drainMillis));
        goal(
                g,
                "P6 no extra platform threads",
                num(lt, 0) + " (" + f.extraNames(L) + ")",
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
    }

    private static void goal(TextTable g, String goal, String measured, boolean isMeasured, boolean met, String miss) {
        String status = !isMeasured ? "not measured" : met ? "**met**" : "**missed**";
        g.row(goal, measured, isMeasured && !met ? status + ": " + miss : status);
    }
}
