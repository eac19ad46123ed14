package io.lockkit.benchmarks;

import io.lockkit.LockOptions;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Leader failover: several candidate JVMs ({@link FailoverCandidate}) campaign for one name; the
 * leader's JVM is killed or stopped at a random moment of its term, and the time from the kill (or
 * the stop signal) to the moment another candidate is told it leads is one sample. Rounds of that
 * for lockkit on Redis, Spring Integration's {@code LockRegistryLeaderInitiator} over its
 * {@code RedisLockRegistry} on the same Redis, and lockkit on PostgreSQL, in one of three
 * scenarios:
 *
 * <ul>
 *   <li>{@code kill}: {@code kill -9} of the leader, the same lease for all;
 *   <li>{@code defaults}: {@code kill -9} of the leader, each library at its defaults (lockkit's
 *       factory watchdog lease, Spring's {@code RedisLockRegistry} {@code expireAfter}); the
 *       libraries run side by side, each on its own name, since a round lasts up to a minute and
 *       its time is the lease, not CPU;
 *   <li>{@code graceful}: the leader's JVM is stopped normally (SIGTERM; its shutdown hook closes
 *       the leadership or stops the initiator), the same lease for all.
 * </ul>
 *
 * <p>Arguments: the results directory (default {@code results/failover}), the scenario (default
 * {@code kill}), the number of rounds (default 20), the lease in ms (default 2000; not used by
 * {@code defaults}). Prints the scenario's section and writes it into {@code RESULTS.md} in that
 * directory, between its markers, replacing the previous run of the same scenario and keeping
 * everything else (the hand-written analysis).
 *
 * <p>Design notes. The kill falls at a random moment 0.3 s to 0.3 s + one renewal cycle after the
 * election (a lease for the equal-lease scenarios; lockkit's renewal interval, a third of its
 * lease, at defaults, which also spans whole cycles of Spring's 500 ms heartbeat), so it meets
 * every phase of the leader's renewal; a killed leader's lock is freed only by its lease on the
 * backend, so the failover time is the lease left at the kill plus the time a candidate takes to
 * notice. A new candidate JVM replaces the leader before the next round, so three always
 * campaign. Not pinned: the figure is dominated by the lease or by wake-ups, not by CPU; the load
 * average is reported.
 */
public final class FailoverBenchmarkMain {

    static final int CANDIDATES = 3;
    private static final List<String> JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");
    private static final List<String> LIBRARIES = List.of("lockkit-redis", "spring-redis", "lockkit-postgres");
    /** {@code RedisLockRegistry}'s {@code expireAfter} when none is given (Spring Integration 7.1.2). */
    static final long SPRING_DEFAULT_EXPIRE_AFTER_MILLIS = 60_000;

    private FailoverBenchmarkMain() {}

    /** How a round ends the leader's term, and with which leases. */
    enum Scenario {
        KILL("Kill -9 at an equal lease", "kill"),
        DEFAULTS("Kill -9 at each library's defaults", "kill"),
        GRACEFUL("Graceful stop at an equal lease", "stop signal (SIGTERM)");

        final String title;
        final String event;

        Scenario(String title, String event) {
            this.title = title;
            this.event = event;
        }

        String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The lease a library's candidates run with: {@code -1} for the library's default. */
        long leaseArgument(long leaseMillis) {
            return this == DEFAULTS ? -1 : leaseMillis;
        }

        /** The lease in force for a library. */
        long leaseOf(String library, long leaseMillis) {
            if (this != DEFAULTS) {
                return leaseMillis;
            }
            return library.startsWith("spring")
                    ? SPRING_DEFAULT_EXPIRE_AFTER_MILLIS
                    : LockOptions.DEFAULT_WATCHDOG_LEASE.toMillis();
        }

        /** The span after the election in which the round's kill or stop falls at random (after 0.3 s). */
        long phaseSpan(long leaseMillis) {
            return this == DEFAULTS ? LockOptions.DEFAULT_WATCHDOG_LEASE.toMillis() / 3 : leaseMillis;
        }
    }

    /** One candidate JVM and the latest election it reported. */
    private static final class Candidate {
        final Process process;
        final AtomicLong electedAt = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong stoppingAt = new AtomicLong(Long.MIN_VALUE);
        final Thread reader;
        final CountDownLatch ready = new CountDownLatch(1);

        Candidate(Process process) {
            this.process = process;
            reader = new Thread(this::read, "candidate-" + process.pid());
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
                    } else if (line.startsWith("STOPPING ")) {
                        stoppingAt.set(Long.parseLong(line.substring("STOPPING ".length())));
                    } else if (line.startsWith("STOP FAILED")) {
                        System.err.println("candidate " + process.pid() + ": " + line);
                    }
                }
            } catch (IOException e) {
                // the process is gone
            }
        }
    }

    /**
     * One library's samples, in ns: from the kill or stop signal, and (graceful stops) from the
     * moment the old leader's shutdown hook started, to the next election callback.
     */
    static final class Measured {
        final String library;
        final long leaseMillis;
        final long[] samples;
        final long[] fromHook;

        Measured(String library, long leaseMillis, long[] samples, long[] fromHook) {
            this.library = library;
            this.leaseMillis = leaseMillis;
            this.samples = samples;
            this.fromHook = fromHook;
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "results/failover");
        Scenario scenario = Scenario.valueOf((args.length > 1 ? args[1] : "kill").toUpperCase(Locale.ROOT));
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        long leaseMillis = args.length > 3 ? Long.parseLong(args[3]) : 2000;
        String started = ZonedDateTime.now(ZoneOffset.UTC).toString();
        long began = System.nanoTime();
        String loadBefore = loadAverage();
        List<Measured> measured = new ArrayList<>();
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
            if (scenario == Scenario.DEFAULTS) {
                ExecutorService pool = Executors.newFixedThreadPool(LIBRARIES.size());
                try {
                    List<Future<Measured>> running = new ArrayList<>();
                    for (String library : LIBRARIES) {
                        String backend = library.endsWith("postgres") ? pg.jdbcUrl() : redis.uri();
                        running.add(pool.submit(() -> measure(scenario, library, backend, rounds, leaseMillis)));
                    }
                    for (Future<Measured> f : running) {
                        measured.add(f.get());
                    }
                } finally {
                    pool.shutdownNow();
                }
            } else {
                for (String library : LIBRARIES) {
                    String backend = library.endsWith("postgres") ? pg.jdbcUrl() : redis.uri();
                    measured.add(measure(scenario, library, backend, rounds, leaseMillis));
                }
            }
        }
        long minutes = TimeUnit.NANOSECONDS.toMinutes(System.nanoTime() - began);
        String section = FailoverReport.section(
                scenario,
                measured,
                rounds,
                leaseMillis,
                redisVersion,
                pgVersion,
                started,
                minutes,
                loadBefore,
                loadAverage());
        System.out.println(section);
        Files.createDirectories(out);
        Path results = out.resolve("RESULTS.md");
        String previous =
                Files.exists(results) ? Files.readString(results) : "# Leader failover (lockkit, Spring Integration)\n";
        Files.writeString(results, splice(previous, scenario, section));
    }

    /** {@code document} with the scenario's generated section replaced by {@code section}, or appended. */
    static String splice(String document, Scenario scenario, String section) {
        String begin = "<!-- generated: " + scenario.key() + " -->\n";
        String end = "<!-- end generated: " + scenario.key() + " -->\n";
        int b = document.indexOf(begin);
        int e = document.indexOf(end);
        if (b >= 0 && e > b) {
            return document.substring(0, b) + begin + section + end + document.substring(e + end.length());
        }
        return document + (document.endsWith("\n\n") ? "" : "\n") + begin + section + end;
    }

    /** Rounds of ending the leader's term; returns each round's failover time in ns. */
    private static Measured measure(Scenario scenario, String library, String backend, int rounds, long leaseMillis)
            throws Exception {
        String name = "failover-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        long lease = scenario.leaseOf(library, leaseMillis);
        long leaseArgument = scenario.leaseArgument(leaseMillis);
        List<Candidate> candidates = new ArrayList<>();
        long[] samples = new long[rounds];
        long[] fromHook = new long[rounds];
        long began = System.nanoTime();
        try {
            for (int i = 0; i < CANDIDATES; i++) {
                candidates.add(start(library, backend, leaseArgument, name));
            }
            for (Candidate c : candidates) {
                await(c);
            }
            long bound = TimeUnit.MILLISECONDS.toNanos(lease * 3 + 10_000);
            Candidate leader = awaitLeader(candidates, began, bound, null);
            for (int r = 0; r < rounds; r++) {
                long phase = 300 + ThreadLocalRandom.current().nextLong(scenario.phaseSpan(leaseMillis) + 1);
                TimeUnit.MILLISECONDS.sleep(phase);
                long ended = System.nanoTime();
                if (scenario == Scenario.GRACEFUL) {
                    // SIGTERM through the handle: Process.destroy() would also close the pipes and lose the
                    // old leader's last lines
                    leader.process.toHandle().destroy();
                } else {
                    leader.process.destroyForcibly(); // SIGKILL
                }
                Candidate next = awaitLeader(candidates, ended, bound, leader);
                samples[r] = next.electedAt.get() - ended;
                System.err.printf(
                        Locale.ROOT, "%s %s round %d: %.0f ms%n", scenario.key(), library, r + 1, samples[r] / 1e6);
                if (!leader.process.waitFor(lease + 10_000, TimeUnit.MILLISECONDS)) {
                    System.err.println(library + ": the old leader " + leader.process.pid() + " did not stop; killed");
                    leader.process.destroyForcibly();
                    leader.process.waitFor(10, TimeUnit.SECONDS);
                }
                leader.reader.join(TimeUnit.SECONDS.toMillis(10));
                fromHook[r] =
                        leader.stoppingAt.get() == Long.MIN_VALUE ? -1 : next.electedAt.get() - leader.stoppingAt.get();
                candidates.remove(leader);
                Candidate fresh = start(library, backend, leaseArgument, name);
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
        return new Measured(library, lease, samples, fromHook);
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
                leaseMillis < 0 ? "default" : Long.toString(leaseMillis),
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
            List<Candidate> candidates, long since, long boundNanos, @Nullable Candidate except)
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
