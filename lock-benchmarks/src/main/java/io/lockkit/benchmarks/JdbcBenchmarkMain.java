package io.lockkit.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lockkit.benchmarks.Stats.Samples;
import io.lockkit.jdbc.JdbcLockProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * P1, P3 and P7 on PostgreSQL and MariaDB: lockkit's JDBC provider beside a raw-SQL floor and Spring Integration's
 * {@code JdbcLockRegistry}, one PostgreSQL (the embedded binaries), one run. Prints a Markdown
 * table and writes it to {@code results/jdbc/RESULTS.md} (or the directory given as argument).
 *
 * <p>Design notes. Every library gets the same pool per client (HikariCP, one connection per thread
 * plus one), so only the statements differ. P1: one thread locks and unlocks one name, no
 * contention; the latency of each pair. P3: 4 clients (each its own pool and lock objects, as 4
 * processes) × 8 threads take one hot name with no pause; acquisitions per second and the
 * hand-off (from the releasing thread's unlock call to the next holder's lock return). P7: the
 * same with 4 clients × 1 thread, each asking again only after another client took the lock and
 * holding it 2 ms, so that every release hands the lock to another client (process): the hand-off
 * p50 between clients. The floor
 * acquires with one INSERT … ON CONFLICT … DO UPDATE … WHERE expired, releases with one DELETE, and
 * its waiters poll every millisecond; JdbcLockRegistry polls every 100 ms (its default,
 * idleBetweenTries). Plain drivers, not JMH: database round trips dominate. On a machine with two
 * or more CPUs and taskset, PostgreSQL is pinned to CPU 0 and this JVM to CPU 1.
 */
public final class JdbcBenchmarkMain {

    enum Peer {
        FLOOR,
        LOCKKIT,
        SPRING,
        /** P1 only: lockkit's provider called directly (acquire and release), without the core: the database's share. */
        LOCKKIT_SPI
    }

    /** The peers of P3 (LOCKKIT_SPI has no waiting). */
    private static final Peer[] P3_PEERS = {Peer.FLOOR, Peer.LOCKKIT, Peer.SPRING};

    private static final Duration P1_WARMUP = Duration.ofSeconds(2);
    /** P1 runs the libraries in turns of this length, so that load from elsewhere falls on all alike. */
    private static final Duration P1_TURN = Duration.ofMillis(500);

    private static final int P1_TURNS = 10;
    private static final Duration P3_WARMUP = Duration.ofSeconds(2);
    private static final Duration P3_MEASURE = Duration.ofSeconds(6);
    private static final int P3_CLIENTS = 4;
    private static final int P3_THREADS = 8;
    /** P7: threads per client; one, so that every hand-off is to another client. */
    private static final int P7_THREADS = 1;
    /** P7: how long each holder keeps the lock. */
    private static final Duration P7_HOLD = Duration.ofMillis(2);

    private JdbcBenchmarkMain() {}

    /**
     * Arguments: the output directory (default {@code results/jdbc}), then optionally
     * {@code --db postgresql|mariadb|both} (default both) and {@code --repeats N} (default 3): the
     * databases take turns, one full round (P1 and P3) each, N times.
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of("results/jdbc");
        String which = "both";
        int repeats = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--db" -> which = args[++i];
                case "--repeats" -> repeats = Integer.parseInt(args[++i]);
                default -> out = Path.of(args[i]);
            }
        }
        int cpus = Runtime.getRuntime().availableProcessors(); // before pinning narrows it
        List<JdbcDatabase> databases = new ArrayList<>();
        try {
            if (!which.equals("mariadb")) {
                databases.add(JdbcDatabase.postgres());
            }
            if (!which.equals("postgresql")) {
                databases.add(JdbcDatabase.mariaDb());
            }
            String pinning = pin(databases, cpus);
            for (JdbcDatabase db : databases) {
                JdbcLockProvider.builder()
                        .jdbcUrl(db.url())
                        .createSchema(true)
                        .build()
                        .close();
                db.sql(db.floorTable());
                db.sql(db.springLockTable());
                db.sql(db.noopRoutine());
                log("%s %s at %s; %s", db.name(), db.version(), db.url(), pinning);
            }
            List<String> load = new ArrayList<>(List.of(loadAverage()));
            java.util.Map<JdbcDatabase, List<String[]>> rounds = new java.util.LinkedHashMap<>();
            java.util.Map<JdbcDatabase, List<double[]>> breakdowns = new java.util.LinkedHashMap<>();
            for (int round = 1; round <= repeats; round++) {
                for (JdbcDatabase db : databases) {
                    breakdowns.computeIfAbsent(db, k -> new ArrayList<>()).add(breakdown(db));
                    String[] r = round(db, round);
                    rounds.computeIfAbsent(db, k -> new ArrayList<>()).add(r);
                    load.add(loadAverage());
                }
            }
            String report = JdbcReport.render(rounds, breakdowns, pinning, cpus, repeats, load);
            Files.createDirectories(out);
            Files.writeString(out.resolve("RESULTS.md"), report);
            System.out.println(report);
        } finally {
            databases.forEach(JdbcDatabase::close);
        }
        System.exit(0);
    }

    /**
     * One round on {@code db}: P1 for every peer in turns, then P3 for each; the row's values are
     * per peer, in {@link JdbcReport#COLUMNS}' order.
     */
    private static String[] round(JdbcDatabase db, int round) throws Exception {
        double[][] p1 = p1(db);
        List<String> cells = new ArrayList<>();
        for (Peer peer : Peer.values()) {
            double[] one = p1[peer.ordinal()];
            log(
                    "%s round %d P1 %s: p50 %.0f us, p99 %.0f us, median ratio to the floor %.2f",
                    db.name(), round, peer, one[0], one[1], one[3]);
            cells.add(String.format(Locale.ROOT, "%.0f", one[0]));
            cells.add(String.format(Locale.ROOT, "%.3f", one[3]));
        }
        for (Peer peer : P3_PEERS) {
            double[] p3 = p3(peer, db, P3_THREADS);
            log(
                    "%s round %d P3 %s: %.0f acquisitions/s, hand-off p50 %.0f us (same client %.0f, other %.0f,"
                            + " %.0f%% same), lost updates %d",
                    db.name(), round, peer, p3[0], p3[1], p3[4], p3[5], p3[6], (long) p3[3]);
            for (int i : new int[] {0, 1, 2, 4, 5, 6, 3}) {
                cells.add(String.format(Locale.ROOT, "%.1f", p3[i]));
            }
        }
        for (Peer peer : P3_PEERS) {
            double[] p7 = p3(peer, db, P7_THREADS);
            log(
                    "%s round %d P7 %s: other-client hand-off p50 %.0f us (%.0f%% same client), %.0f acquisitions/s",
                    db.name(), round, peer, p7[5], p7[6], p7[0]);
            cells.add(String.format(Locale.ROOT, "%.1f", p7[5]));
        }
        return cells.toArray(String[]::new);
    }

    /** What {@link #breakdown} times, in its order. */
    static final String[] BREAKDOWN = {
        "SELECT 1",
        "floor acquire (upsert)",
        "floor release (DELETE)",
        "an empty routine called the way lockkit calls its own",
        "lockkit acquire (provider call)",
        "lockkit release (provider call)"
    };

    /**
     * Where P1's time goes: the p50 (us) of each single statement on one pooled connection, one
     * thread, the kinds in turns (2,000 of each, 5 turns): a round trip, the floor's two statements,
     * an empty routine called as lockkit calls its own (the routine machinery's own cost), and
     * lockkit's provider calls.
     */
    private static double[] breakdown(JdbcDatabase db) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url() + db.floorUrlParameters());
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config);
                JdbcLockProvider provider = JdbcLockProvider.create(pool)) {
            List<Samples> samples = new ArrayList<>();
            for (int i = 0; i < BREAKDOWN.length; i++) {
                samples.add(new Samples());
            }
            String name = "breakdown-" + System.nanoTime();
            io.lockkit.spi.LockProvider.LockRequest request =
                    new io.lockkit.spi.LockProvider.LockRequest(name, "b:1", Duration.ofSeconds(30), Duration.ZERO);
            for (int turn = 0; turn < 5; turn++) {
                try (Connection c = pool.getConnection();
                        PreparedStatement one = c.prepareStatement("SELECT 1");
                        PreparedStatement acquire = c.prepareStatement(db.floorAcquire());
                        PreparedStatement release = c.prepareStatement(db.floorRelease());
                        PreparedStatement noop = c.prepareStatement(db.noopCall())) {
                    for (int i = 0; i < 2000; i++) {
                        long t0 = System.nanoTime();
                        one.executeQuery().close();
                        long t1 = System.nanoTime();
                        acquire.setString(1, name);
                        acquire.setString(2, "floor");
                        acquire.execute();
                        long t2 = System.nanoTime();
                        release.setString(1, name);
                        release.setString(2, "floor");
                        release.executeUpdate();
                        long t3 = System.nanoTime();
                        noop.executeQuery().close();
                        long t4 = System.nanoTime();
                        samples.get(0).add(t1 - t0);
                        samples.get(1).add(t2 - t1);
                        samples.get(2).add(t3 - t2);
                        samples.get(3).add(t4 - t3);
                    }
                }
                for (int i = 0; i < 2000; i++) {
                    long t0 = System.nanoTime();
                    provider.tryAcquire(request);
                    long t1 = System.nanoTime();
                    provider.release(name, "b:1");
                    long t2 = System.nanoTime();
                    samples.get(4).add(t1 - t0);
                    samples.get(5).add(t2 - t1);
                }
            }
            double[] p50 = new double[BREAKDOWN.length];
            for (int i = 0; i < p50.length; i++) {
                p50[i] = samples.get(i).percentile(50) / 1000;
                log("%s breakdown: %s p50 %.0f us", db.name(), BREAKDOWN[i], p50[i]);
            }
            return p50;
        }
    }

    /** Pins every database server to CPU 0 and this JVM to CPU 1, where there are two CPUs and taskset. */
    private static String pin(List<JdbcDatabase> databases, int cpus) {
        if (cpus < 2) {
            return "unpinned (one CPU)";
        }
        for (JdbcDatabase db : databases) {
            if (db.pid().isEmpty()
                    || !taskset("-a", "-p", "-c", "0", Long.toString(db.pid().getAsLong()))) {
                return "unpinned (taskset failed)";
            }
        }
        if (!taskset(
                "-a", "-p", "-c", "1", Long.toString(ProcessHandle.current().pid()))) {
            return "unpinned (taskset failed)";
        }
        return "each database server (all its threads; PostgreSQL's backends forked after) on CPU 0, this JVM on CPU 1";
    }

    /** The load average now, as /proc/loadavg's first three numbers. */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    // ---- scenarios ----

    /**
     * P1 for every library, in turns: each library's client (own pool) runs {@link #P1_TURN}, then
     * the next, {@link #P1_TURNS} times. Per library: p50, p99, pairs, and the median over turns of
     * (this library's p50 in the turn / the floor's p50 in the same round).
     */
    private static double[][] p1(JdbcDatabase db) throws Exception {
        Peer[] peers = Peer.values();
        List<JdbcPeers.Client> clients = new ArrayList<>();
        try {
            List<Lock> locks = new ArrayList<>();
            for (Peer peer : peers) {
                JdbcPeers.Client c = JdbcPeers.open(peer, db, 1);
                clients.add(c);
                locks.add(c.lock("p1-" + peer));
            }
            for (Lock lock : locks) {
                long end = System.nanoTime() + P1_WARMUP.toNanos();
                while (System.nanoTime() - end < 0) {
                    lock.lock();
                    lock.unlock();
                }
            }
            List<Samples> all = new ArrayList<>();
            List<List<Double>> ratios = new ArrayList<>();
            for (int i = 0; i < peers.length; i++) {
                all.add(new Samples());
                ratios.add(new ArrayList<>());
            }
            for (int turn = 0; turn < P1_TURNS; turn++) {
                double floorP50 = 0;
                for (int i = 0; i < peers.length; i++) {
                    Lock lock = locks.get(i);
                    Samples s = new Samples();
                    long end = System.nanoTime() + P1_TURN.toNanos();
                    while (System.nanoTime() - end < 0) {
                        long t0 = System.nanoTime();
                        lock.lock();
                        lock.unlock();
                        s.add(System.nanoTime() - t0);
                    }
                    double p50 = s.percentile(50);
                    if (peers[i] == Peer.FLOOR) {
                        floorP50 = p50;
                    }
                    ratios.get(i).add(p50 / floorP50);
                    all.set(i, Samples.merge(List.of(all.get(i), s)));
                }
            }
            double[][] out = new double[peers.length][];
            for (int i = 0; i < peers.length; i++) {
                List<Double> r = new ArrayList<>(ratios.get(i));
                java.util.Collections.sort(r);
                Samples s = all.get(i);
                out[i] = new double[] {s.percentile(50) / 1000, s.percentile(99) / 1000, s.count, r.get(r.size() / 2)};
            }
            return out;
        } finally {
            clients.forEach(JdbcPeers.Client::close);
        }
    }

    /** P3 ({@code threadsPerClient} 8) or P7 (1): 4 clients take one hot name. */
    private static double[] p3(Peer peer, JdbcDatabase db, int threadsPerClient) throws Exception {
        List<JdbcPeers.Client> clients = new ArrayList<>();
        try {
            for (int i = 0; i < P3_CLIENTS; i++) {
                clients.add(JdbcPeers.open(peer, db, threadsPerClient));
            }
            String name = (threadsPerClient == P7_THREADS ? "p7-" : "p3-") + peer;
            AtomicLong releasedAt = new AtomicLong();
            java.util.concurrent.atomic.AtomicInteger releasedBy = new java.util.concurrent.atomic.AtomicInteger(-1);
            AtomicLong acquisitions = new AtomicLong();
            long[] plain = new long[1];
            AtomicLong atomic = new AtomicLong();
            List<Samples> handoffs = new ArrayList<>();
            List<Samples> sameClient = new ArrayList<>();
            List<Samples> otherClient = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            long start = System.nanoTime();
            long measureFrom = start + P3_WARMUP.toNanos();
            long measureTo = measureFrom + P3_MEASURE.toNanos();
            for (int ci = 0; ci < clients.size(); ci++) {
                JdbcPeers.Client c = clients.get(ci);
                int clientIndex = ci;
                for (int t = 0; t < threadsPerClient; t++) {
                    Samples mine = new Samples();
                    Samples mineSame = new Samples();
                    Samples mineOther = new Samples();
                    handoffs.add(mine);
                    sameClient.add(mineSame);
                    otherClient.add(mineOther);
                    Lock lock = c.lock(name);
                    Thread th = new Thread(
                            () -> {
                                while (System.nanoTime() - measureTo < 0) {
                                    lock.lock();
                                    long now = System.nanoTime();
                                    if (threadsPerClient == P7_THREADS) {
                                        // P7: hold longer than a statement, so that an attempt sent when
                                        // this one won is answered (busy) before the release (see
                                        // Contention's run: the clients share one JVM)
                                        java.util.concurrent.locks.LockSupport.parkNanos(P7_HOLD.toNanos());
                                    }
                                    long released = releasedAt.get();
                                    int by = releasedBy.get();
                                    if (now - measureFrom >= 0 && now - measureTo < 0) {
                                        acquisitions.incrementAndGet();
                                        if (released != 0) {
                                            mine.add(now - released);
                                            (by == clientIndex ? mineSame : mineOther).add(now - released);
                                        }
                                    }
                                    plain[0]++;
                                    atomic.incrementAndGet();
                                    releasedBy.set(clientIndex);
                                    long taken = atomic.get();
                                    releasedAt.set(System.nanoTime());
                                    lock.unlock();
                                    while (threadsPerClient == P7_THREADS
                                            && atomic.get() == taken
                                            && System.nanoTime() - measureTo < 0) {
                                        // P7: ask again only after another client took it
                                        java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                                    }
                                }
                            },
                            "p3-" + peer + "-" + threads.size());
                    th.setDaemon(true);
                    threads.add(th);
                }
            }
            threads.forEach(Thread::start);
            for (Thread th : threads) {
                th.join(TimeUnit.SECONDS.toMillis(120));
            }
            Samples all = Samples.merge(handoffs);
            Samples same = Samples.merge(sameClient);
            Samples other = Samples.merge(otherClient);
            double perSecond = acquisitions.get() / (P3_MEASURE.toNanos() / 1e9);
            return new double[] {
                perSecond,
                all.percentile(50) / 1000,
                all.percentile(99) / 1000,
                atomic.get() - plain[0],
                same.count == 0 ? Double.NaN : same.percentile(50) / 1000,
                other.count == 0 ? Double.NaN : other.percentile(50) / 1000,
                all.count == 0 ? 0 : 100.0 * same.count / all.count
            };
        } finally {
            clients.forEach(JdbcPeers.Client::close);
        }
    }

    // ---- plumbing ----

    private static boolean taskset(String... args) {
        List<String> command = new ArrayList<>(List.of("taskset"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[jdbc-bench] " + format + "%n", args);
    }
}
