package io.lockkit.benchmarks;

import static io.lockkit.benchmarks.ReportFigures.millis;
import static io.lockkit.benchmarks.ReportFigures.num;

/**
 * The report's P5 section: lockkit's and Redisson's watchdogs holding the same number of locks, side
 * by side (the floor has none); "Not measured." without both. Immutable.
 */
final class WatchdogTable {

    private final ReportFigures f;

    WatchdogTable(ReportFigures figures) {
        this.f = figures;
    }

    String markdown() {
        WatchdogLoad.Result l = f.p5(Library.LOCKKIT);
        WatchdogLoad.Result r = f.p5(Library.REDISSON);
        if (l == null || r == null) {
            return "Not measured.\n";
        }
        String intro = "Both hold " + num(l.locks(), 0)
                + " locks under their watchdog (lease 30 s, renewed every 10 s) for " + num(l.seconds(), 0)
                + " s, each on its own Redis, at the same time. The floor has no watchdog.\n\n";
        TextTable t = TextTable.of("", "lockkit", "Redisson").rightFrom(1);
        t.row("client commands/s", num(l.clientCommandsPerSecond(), 1), num(r.clientCommandsPerSecond(), 1));
        t.row(
                "client commands by name, whole window",
                String.valueOf(l.clientCommands()),
                String.valueOf(r.clientCommands()));
        t.row("script-internal calls/s", num(l.scriptCallsPerSecond(), 1), num(r.scriptCallsPerSecond(), 1));
        t.row(
                "renewal ticks in the window",
                l.renewalTicks() + " (" + l.ticksCounted() + ")",
                r.renewalTicks() + " (" + r.ticksCounted() + ")");
        t.row(
                "locks renewed per tick (mean / largest)",
                num(l.renewalsPerTick(), 0) + " / " + num(l.maxRenewalsPerTick(), 0),
                "all " + num(r.locks(), 0) + ", 100 per EVAL (`lockWatchdogBatchSize`)");
        t.row(
                "client round trips in the window (wire count)",
                String.valueOf(l.roundTrips()),
                r.roundTrips() + " (PINGs excluded)");
        t.row("round trips per renewal tick: mean", num(l.roundTripsPerTick(), 2), num(r.roundTripsPerTick(), 2));
        t.row(
                "round trips per renewal tick: median / most",
                num(l.medianRoundTripsPerTick(), 0) + " / " + num(l.mostRoundTripsInATick(), 0),
                "—");
        t.row("mean tick duration (renew call)", millis(l.meanTickMillis()), "—");
        t.row(
                "Redis CPU (user + sys, % of one core)",
                num(l.redisCpuPercent(), 2) + " %", num(r.redisCpuPercent(), 2) + " %");
        t.row("holds lost", String.valueOf(l.lostHolds()), r.lostHolds() + " (of a 1 % sample)");
        t.row("time to acquire all (8 threads)", millis(l.acquireSeconds() * 1e3), millis(r.acquireSeconds() * 1e3));
        t.row(
                "client commands per 10 s",
                String.valueOf(l.clientCommandsPer10s()),
                String.valueOf(r.clientCommandsPer10s()));
        return intro + t.markdown() + "\nlockkit's renewal ticks, in order: " + String.join("; ", l.tickDetail())
                + ".\n";
    }
}
