package io.lockkit.benchmarks;

import io.lockkit.LockOptions;
import io.lockkit.benchmarks.FailoverBenchmarkMain.Measured;
import io.lockkit.benchmarks.FailoverBenchmarkMain.Scenario;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.stream.Collectors;

/**
 * A failover scenario's section of {@code results/failover/RESULTS.md}: how it was generated and
 * run, a table of each library's failover times, and every sample.
 */
final class FailoverReport {

    private FailoverReport() {}

    private static String[] row(Scenario scenario, Measured m) {
        long[] copy = m.samples.clone();
        double p50 = Stats.percentile(copy, copy.length, 50) / 1e6;
        double p99 = Stats.percentile(copy, copy.length, 99) / 1e6;
        double min = copy[0] / 1e6;
        double max = copy[copy.length - 1] / 1e6;
        double mean = Arrays.stream(m.samples).average().orElse(Double.NaN) / 1e6;
        List<String> cells = new ArrayList<>(List.of(
                m.library,
                fmt(m.leaseMillis),
                Integer.toString(m.samples.length),
                fmt(scenario, p50),
                fmt(scenario, p99),
                fmt(scenario, min),
                fmt(scenario, max),
                fmt(scenario, mean)));
        if (scenario != Scenario.GRACEFUL) {
            cells.add(String.format(Locale.ROOT, "%+,.0f", p50 - m.leaseMillis));
        } else {
            long[] hook = m.fromHook.clone();
            cells.add(fmt(scenario, Stats.percentile(hook, hook.length, 50) / 1e6));
            cells.add(fmt(scenario, Stats.percentile(hook, hook.length, 99) / 1e6));
        }
        return cells.toArray(String[]::new);
    }

    private static String fmt(double ms) {
        return String.format(Locale.ROOT, "%,.0f", ms);
    }

    /** Milliseconds as the scenario's table shows them: one decimal where they are a few ms. */
    private static String fmt(Scenario scenario, double ms) {
        return scenario == Scenario.GRACEFUL ? String.format(Locale.ROOT, "%,.1f", ms) : fmt(ms);
    }

    static String section(
            Scenario scenario,
            List<Measured> measured,
            int rounds,
            long leaseMillis,
            String redisVersion,
            String pgVersion,
            String started,
            long minutes,
            String loadBefore,
            String loadAfter) {
        StringBuilder b = new StringBuilder();
        b.append("## ").append(scenario.title).append("\n\n");
        b.append("Generated ")
                .append(started)
                .append(" (")
                .append(minutes)
                .append(" min) by\n\n```sh\n")
                .append("mvn -B -q -pl lock-benchmarks -am package -DskipTests && cd lock-benchmarks && \\\n")
                .append("  java -cp target/classes:'target/lib/*' io.lockkit.benchmarks.FailoverBenchmarkMain")
                .append(" results/failover ")
                .append(scenario.key())
                .append(' ')
                .append(rounds);
        if (scenario != Scenario.DEFAULTS) {
            b.append(' ').append(leaseMillis);
        }
        b.append("\n```\n\n");
        b.append("Redis ")
                .append(redisVersion)
                .append(" and PostgreSQL ")
                .append(pgVersion)
                .append(" (loopback), JDK ")
                .append(System.getProperty("java.runtime.version"))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" CPUs, unpinned; load average (1, 5, 15 min) ")
                .append(loadBefore)
                .append(" before, ")
                .append(loadAfter)
                .append(" after.\n\n");
        b.append(method(scenario, leaseMillis));
        List<String> header = new ArrayList<>(
                List.of("library", "lease ms", "rounds", "p50 ms", "p99 ms", "min ms", "max ms", "mean ms"));
        header.addAll(
                scenario == Scenario.GRACEFUL
                        ? List.of("hook → elected p50 ms", "hook → elected p99 ms")
                        : List.of("p50 − lease ms"));
        TextTable table = TextTable.of(header.toArray(String[]::new));
        for (Measured m : measured) {
            table.row(row(scenario, m));
        }
        b.append(table.markdown());
        b.append("\nEvery sample, in ms, in the order measured (")
                .append(scenario.event)
                .append(" to the next candidate's election callback):\n\n");
        sampleLines(
                b,
                measured,
                m -> m.samples,
                ns -> scenario == Scenario.GRACEFUL
                        ? String.format(Locale.ROOT, "%.1f", ns / 1e6)
                        : Long.toString(Math.round(ns / 1e6)));
        if (scenario == Scenario.GRACEFUL) {
            b.append("\nThe same rounds from the moment the old leader's shutdown hook started (its JVM's")
                    .append(" reaction to the signal left out; −1: the hook reported nothing):\n\n");
            sampleLines(
                    b, measured, m -> m.fromHook, ns -> ns < 0 ? "−1" : String.format(Locale.ROOT, "%.1f", ns / 1e6));
        }
        return b.toString();
    }

    /** One line per library: its samples in the order measured, each shown by {@code shown}. */
    private static void sampleLines(
            StringBuilder b, List<Measured> measured, Function<Measured, long[]> samples, LongFunction<String> shown) {
        for (Measured m : measured) {
            b.append("- ")
                    .append(m.library)
                    .append(": ")
                    .append(Arrays.stream(samples.apply(m)).mapToObj(shown).collect(Collectors.joining(" ")))
                    .append('\n');
        }
    }

    /** How the scenario's rounds ran: the candidates, how a term ends, and each library's settings. */
    private static String method(Scenario scenario, long leaseMillis) {
        StringBuilder b = new StringBuilder();
        b.append(FailoverBenchmarkMain.CANDIDATES).append(" candidate JVMs per library");
        switch (scenario) {
            case KILL ->
                b.append(", lease ")
                        .append(leaseMillis)
                        .append(" ms for all; each round kills the leader's JVM (SIGKILL) 0.3 s to 0.3 s + one lease");
            case DEFAULTS ->
                b.append(", each library at its defaults, the libraries side by side (each on its own")
                        .append(" name); each round kills the leader's JVM (SIGKILL) 0.3 s to 0.3 s + ")
                        .append(fmt(scenario.phaseSpan(leaseMillis)))
                        .append(" ms (lockkit's default renewal interval)");
            case GRACEFUL ->
                b.append(", lease ")
                        .append(leaseMillis)
                        .append(" ms for all; each round stops the leader's JVM normally (SIGTERM, its shutdown hook")
                        .append(" closes the leadership or stops the initiator) 0.3 s to 0.3 s + one lease");
        }
        b.append(" after its election and times the ")
                .append(scenario.event)
                .append(" to the next candidate's election callback (lockkit: `onElected`; Spring:")
                .append(" `Candidate.onGranted`).\n");
        if (scenario == Scenario.DEFAULTS) {
            b.append("lockkit: `Leadership` with `LeadershipOptions` untouched on a default factory (lease = the")
                    .append(" factory's watchdog lease, ")
                    .append(fmt(LockOptions.DEFAULT_WATCHDOG_LEASE.toMillis()))
                    .append(" ms; renewal every lease/3). spring: `LockRegistryLeaderInitiator` 7.1.2 over")
                    .append(" `new RedisLockRegistry(connectionFactory, registryKey)` (expireAfter ")
                    .append(fmt(FailoverBenchmarkMain.SPRING_DEFAULT_EXPIRE_AFTER_MILLIS))
                    .append(" ms, spin lock retried every 100 ms, heartbeat 500 ms, busy wait 50 ms: all its")
                    .append(" defaults), Lettuce connection factory, no Spring context.\n\n");
        } else {
            b.append("lockkit: `Leadership` with the lease, everything else default (renewal every lease/3)");
            if (scenario == Scenario.GRACEFUL) {
                b.append("; the hook calls `Leadership.close()`, then closes the factory");
            }
            b.append(". spring: `LockRegistryLeaderInitiator` 7.1.2 over `RedisLockRegistry` (expireAfter = the")
                    .append(" lease; spin lock retried every 100 ms, heartbeat 500 ms, busy wait 50 ms: its defaults)");
            if (scenario == Scenario.GRACEFUL) {
                b.append("; the hook calls `stop()`, waits for `onRevoked` (the lock given back), then")
                        .append(" destroys the initiator, the registry and the connection factory");
            }
            b.append(", Lettuce connection factory, no Spring context.\n\n");
        }
        return b.toString();
    }
}
