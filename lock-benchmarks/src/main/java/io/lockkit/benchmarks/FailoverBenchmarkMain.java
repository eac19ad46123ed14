package io.lockkit.benchmarks;

import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Leader failover after {@code kill -9}: several candidate JVMs ({@link FailoverCandidate}) campaign
 * for one name; the leader's JVM is killed at a random moment of its term, and the time from the
 * kill to the moment another candidate is told it leads is one sample. Rounds of that for lockkit
 * on Redis, Spring Integration's {@code LockRegistryLeaderInitiator} over its
 * {@code RedisLockRegistry} on the same Redis, and lockkit on PostgreSQL, all with the same lease.
 * Prints a Markdown table and writes it to {@code results/failover/RESULTS.md} (or the directory
 * given as first argument; the second is the number of rounds, default 20; the third the lease in
 * ms, default 2000).
 *
 * <p>Design notes. The kill falls at a random moment 0.3 s to 0.3 s + one lease after the election,
 * so it meets every phase of the leader's renewal (lockkit renews every lease/3, Spring's leader
 * every 500 ms heartbeat); a killed leader's lock is freed only by its lease on the backend, so the
 * failover time is the lease left at the kill plus the time a candidate takes to notice. A new
 * candidate JVM replaces the killed one before the next round, so three always campaign. Not
 * pinned: the figure is dominated by the lease, not by CPU; the load average is reported.
 */
public final class FailoverBenchmarkMain {

    private static final int CANDIDATES = 3;
    private static final List<String> JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");

    private FailoverBenchmarkMain() {}

    /** One candidate JVM and the latest election it reported. */
    private static final class Candidate {
        final Process process;
        final AtomicLong electedAt = new AtomicLong(Long.MIN_VALUE);
        final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);

        Candidate(Process process) {
            this.process = process;
            Thread reader = new Thread(this::read, "candidate-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.equals("READY")) {
                        ready.countDown();
                    } else if (line.startsWith("ELECTED ")) {
                        electedAt.set(Long.parseLong(line.substring("ELECTED ".length())));
                    }
                }
            } catch (IOException e) {
                // the process is gone
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "results/failover");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        long leaseMillis = args.length > 2 ? Long.parseLong(args[2]) : 2000;
        String started = ZonedDateTime.now(ZoneOffset.UTC).toString();
        String loadBefore = loadAverage();
        List<String[]> rows = new ArrayList<>();
        String redisVersion;
        String pgVersion;
        try (RedisServer redis = RedisFixture.builder()
                        .sources(Source.PATH, Source.EMBEDDED)
                        .build()
                        .start();
                PostgresServer pg = PostgresFixture.builder()
                        .sources(io.lockkit.testkit.jdbc.Source.EMBEDDED)
                        .build()
                        .start()) {
            redisVersion = redis.version();
            pgVersion = pg.version();
            JdbcLockProvider.builder()
                    .jdbcUrl(pg.jdbcUrl())
                    .createSchema(true)
                    .build()
                    .close();
            rows.add(row("lockkit-redis", measure("lockkit-redis", redis.uri(), rounds, leaseMillis), leaseMillis));
            rows.add(row("spring-redis", measure("spring-redis", redis.uri(), rounds, leaseMillis), leaseMillis));
            rows.add(row(
                    "lockkit-postgres", measure("lockkit-postgres", pg.jdbcUrl(), rounds, leaseMillis), leaseMillis));
        }
        String report = report(rows, rounds, leaseMillis, redisVersion, pgVersion, started, loadBefore, loadAverage());
        System.out.println(report);
        Files.createDirectories(out);
        Files.writeString(out.resolve("RESULTS.md"), report);
    }

    /** Rounds of kill -9 of the leader; returns each round's failover time in ns. */
    private static long[] measure(String library, String backend, int rounds, long leaseMillis) throws Exception {
        String name = "failover-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        List<Candidate> candidates = new ArrayList<>();
        long[] samples = new long[rounds];
        long began = System.nanoTime();
        try {
            for (int i = 0; i < CANDIDATES; i++) {
                candidates.add(start(library, backend, leaseMillis, name));
            }
            for (Candidate c : candidates) {
                await(c);
            }
            long bound = TimeUnit.MILLISECONDS.toNanos(leaseMillis * 10 + 10_000);
            Candidate leader = awaitLeader(candidates, began, bound, null);
            for (int r = 0; r < rounds; r++) {
                long phase = 300 + ThreadLocalRandom.current().nextLong(leaseMillis + 1);
                TimeUnit.MILLISECONDS.sleep(phase);
                long killed = System.nanoTime();
                leader.process.destroyForcibly(); // SIGKILL
                Candidate next = awaitLeader(candidates, killed, bound, leader);
                samples[r] = next.electedAt.get() - killed;
                System.err.printf(Locale.ROOT, "%s round %d: %.0f ms%n", library, r + 1, samples[r] / 1e6);
                leader.process.waitFor(10, TimeUnit.SECONDS);
                candidates.remove(leader);
                Candidate fresh = start(library, backend, leaseMillis, name);
                candidates.add(fresh);
                await(fresh);
                leader = next;
            }
        } finally {
            for (Candidate c : candidates) {
                c.process.destroyForcibly();
                c.process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        return samples;
    }

    private static Candidate start(String library, String backend, long leaseMillis, String name) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM);
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                FailoverCandidate.class.getName(),
                library,
                backend,
                Long.toString(leaseMillis),
                name));
        return new Candidate(
                new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private static void await(Candidate c) throws InterruptedException {
        if (!c.ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("candidate " + c.process.pid() + " not ready within 60 s");
        }
    }

    /** The first candidate other than {@code except} told it leads after {@code since}. */
    private static Candidate awaitLeader(
            List<Candidate> candidates,
            long since,
            long boundNanos,
            @org.jspecify.annotations.Nullable Candidate except)
            throws InterruptedException {
        long deadline = System.nanoTime() + boundNanos;
        while (System.nanoTime() - deadline < 0) {
            Candidate best = null;
            for (Candidate c : candidates) {
                long e = c.electedAt.get();
                if (c != except
                        && e != Long.MIN_VALUE
                        && e - since > 0
                        && (best == null || e - best.electedAt.get() < 0)) {
                    best = c;
                }
            }
            if (best != null) {
                return best;
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
        throw new IllegalStateException("no candidate was elected within " + boundNanos / 1_000_000 + " ms");
    }

    private static String[] row(String library, long[] samples, long leaseMillis) {
        long[] copy = samples.clone();
        double p50 = Stats.percentile(copy, copy.length, 50) / 1e6;
        double p99 = Stats.percentile(copy, copy.length, 99) / 1e6;
        double min = copy[0] / 1e6;
        double max = copy[copy.length - 1] / 1e6;
        double mean = java.util.Arrays.stream(samples).average().orElse(Double.NaN) / 1e6;
        return new String[] {
            library,
            Integer.toString(samples.length),
            fmt(p50),
            fmt(p99),
            fmt(min),
            fmt(max),
            fmt(mean),
            String.format(Locale.ROOT, "%+,.0f", p50 - leaseMillis)
        };
    }

    private static String fmt(double ms) {
        return String.format(Locale.ROOT, "%,.0f", ms);
    }

    private static String report(
            List<String[]> rows,
            int rounds,
            long leaseMillis,
            String redisVersion,
            String pgVersion,
            String started,
            String loadBefore,
            String loadAfter) {
        StringBuilder b = new StringBuilder();
        b.append("# Leader failover after kill -9 (lockkit, Spring Integration)\n\n");
        b.append("Generated ")
                .append(started)
                .append(" by\n\n```sh\n")
                .append("mvn -B -q -pl lock-benchmarks -am package -DskipTests && cd lock-benchmarks && \\\n")
                .append(
                        "  java -cp target/classes:'target/lib/*' io.lockkit.benchmarks.FailoverBenchmarkMain results/failover ")
                .append(rounds)
                .append(' ')
                .append(leaseMillis)
                .append("\n```\n\n");
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
        b.append(CANDIDATES)
                .append(" candidate JVMs per library, lease ")
                .append(leaseMillis)
                .append(" ms for all; each round kills the leader's JVM (SIGKILL) 0.3 s to 0.3 s + one lease")
                .append(" after its election and times the kill to the next candidate's election callback")
                .append(" (lockkit: `onElected`; Spring: `Candidate.onGranted`).\n")
                .append("lockkit: `Leadership` with the lease, everything else default (renewal every lease/3).")
                .append(" spring: `LockRegistryLeaderInitiator` 7.1.2 over `RedisLockRegistry` (expireAfter = the")
                .append(" lease; spin lock retried every 100 ms, heartbeat 500 ms, busy wait 50 ms: its defaults),")
                .append(" Lettuce connection factory, no Spring context.\n\n");
        b.append("| library | rounds | p50 ms | p99 ms | min ms | max ms | mean ms | p50 − lease ms |\n");
        b.append("|---|---|---|---|---|---|---|---|\n");
        for (String[] r : rows) {
            b.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        return b.toString();
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException | RuntimeException e) {
            return String.format(
                    Locale.ROOT,
                    "%.2f",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }
}
