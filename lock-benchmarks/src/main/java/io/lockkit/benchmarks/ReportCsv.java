package io.lockkit.benchmarks;

import static io.lockkit.benchmarks.ReportFigures.p1p50;
import static io.lockkit.benchmarks.ReportFigures.p1p99;
import static io.lockkit.benchmarks.ReportFigures.p2;
import static io.lockkit.benchmarks.ReportFigures.p3;
import static io.lockkit.benchmarks.ReportFigures.p4;
import static io.lockkit.benchmarks.ReportFigures.p6;

import io.lockkit.benchmarks.BenchmarkMain.Run;

/** The report's {@code summary.csv}: every figure of every run, one per line ({@code metric,library,run,value}). */
final class ReportCsv {

    private ReportCsv() {}

    static String write(ReportFigures f) {
        StringBuilder c = new StringBuilder("metric,library,run,value\n");
        for (Run r : f.runs()) {
            for (Library lib : Library.values()) {
                csv(c, "p1_p50_us", lib, r, p1p50(r, lib));
                csv(c, "p1_p99_us", lib, r, p1p99(r, lib));
                csv(c, "p2_pairs_per_s", lib, r, p2(r, lib));
                csv(c, "p3_acq_per_s", lib, r, p3(r, lib, Contention.Result::acquisitionsPerSecond));
                csv(c, "p3_handoff_p50_us", lib, r, p3(r, lib, Contention.Result::handoffP50Micros));
                csv(c, "p3_handoff_p99_us", lib, r, p3(r, lib, Contention.Result::handoffP99Micros));
                csv(c, "p3_max_wait_ms", lib, r, p3(r, lib, Contention.Result::maxWaitMillis));
                csv(c, "p3_executed_per_acq", lib, r, p3(r, lib, Contention.Result::executedPerAcquisition));
                for (int n : f.contenders()) {
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
        for (WatchdogLoad.Result p : f.results().p5()) {
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
}
