package io.lockkit.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.benchmarks.Stats.Samples;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * P1 and P3 on PostgreSQL: lockkit's JDBC provider beside a raw-SQL floor and Spring Integration's
 * {@code JdbcLockRegistry}, one PostgreSQL (the embedded binaries), one run. Prints a Markdown
 * table and writes it to {@code results/jdbc/RESULTS.md} (or the directory given as argument).
 *
 * <p>Design notes. Every library gets the same pool per client (HikariCP, one connection per thread
 * plus one), so only the statements differ. P1: one thread locks and unlocks one name, no
 * contention; the latency of each pair. P3: 4 clients (each its own pool and lock objects, as 4
 * processes) × 8 threads take one hot name with no pause; acquisitions per second and the
 * hand-off (from the releasing thread's unlock call to the next holder's lock return). The floor
 * acquires with one INSERT … ON CONFLICT … DO UPDATE … WHERE expired, releases with one DELETE, and
 * its waiters poll every millisecond; JdbcLockRegistry polls every 100 ms (its default,
 * idleBetweenTries). Plain drivers, not JMH: database round trips dominate. On a machine with two
 * or more CPUs and taskset, PostgreSQL is pinned to CPU 0 and this JVM to CPU 1.
 */
public final class JdbcBenchmarkMain {

    enum Peer {
        FLOOR,
        LOCKKIT,
        SPRING
    }

    private static final Duration P1_WARMUP = Duration.ofSeconds(2);
    /** P1 runs the libraries in turns of this length, so that load from elsewhere falls on all alike. */
    private static final Duration P1_TURN = Duration.ofMillis(500);

    private static final int P1_TURNS = 10;
    private static final Duration P3_WARMUP = Duration.ofSeconds(2);
    private static final Duration P3_MEASURE = Duration.ofSeconds(6);
    private static final int P3_CLIENTS = 4;
    private static final int P3_THREADS = 8;

    private JdbcBenchmarkMain() {}

    /** A lock library's client: a process's worth of pool and lock objects. */
    private interface Client extends AutoCloseable {
        Lock lock(String name);

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "results/jdbc");
        String pinning = "unpinned";
        int cpus = Runtime.getRuntime().availableProcessors(); // before pinning narrows it
        try (PostgresServer pg = PostgresFixture.builder()
                .sources(io.lockkit.testkit.jdbc.Source.EMBEDDED)
                .build()
                .start()) {
            if (cpus >= 2
                    && pg.pid().isPresent()
                    && taskset("-a", "-p", "-c", "0", Long.toString(pg.pid().getAsLong()))
                    && taskset(
                            "-a",
                            "-p",
                            "-c",
                            "1",
                            Long.toString(ProcessHandle.current().pid()))) {
                pinning = "PostgreSQL (postmaster, backends forked after) on CPU 0, this JVM on CPU 1";
            }
            JdbcLockProvider.builder()
                    .jdbcUrl(pg.jdbcUrl())
                    .createSchema(true)
                    .build()
                    .close();
            pg.query(
                    "CREATE TABLE floor_locks (name text PRIMARY KEY, owner text NOT NULL, expires timestamptz NOT NULL)");
            pg.query(springLockTable());
            log("PostgreSQL %s at %s; %s", pg.version(), PostgresFixture.class.getSimpleName(), pinning);

            List<String[]> rows = new ArrayList<>();
            double[][] p1 = p1(pg.jdbcUrl());
            for (Peer peer : Peer.values()) {
                double[] one = p1[peer.ordinal()];
                log(
                        "P1 %s: p50 %.0f us, p99 %.0f us (%d pairs), median of the turns' p50 ratios to the floor %.2f",
                        peer, one[0], one[1], (long) one[2], one[3]);
            }
            for (Peer peer : Peer.values()) {
                double[] p3 = p3(peer, pg.jdbcUrl());
                log(
                        "P3 %s: %.0f acquisitions/s, hand-off p50 %.0f us p99 %.0f us (same client p50 %.0f us, other client p50 %.0f us,"
                                + " %.0f%% same client), lost updates %d",
                        peer, p3[0], p3[1], p3[2], p3[4], p3[5], p3[6], (long) p3[3]);
                double[] one = p1[peer.ordinal()];
                rows.add(new String[] {
                    peer.name().toLowerCase(Locale.ROOT),
                    fmt(one[0]),
                    fmt(one[1]),
                    String.format(Locale.ROOT, "%.2f", one[3]),
                    fmt(p3[0]),
                    fmt(p3[1]),
                    fmt(p3[2]),
                    fmt(p3[4]),
                    fmt(p3[5]),
                    String.format(Locale.ROOT, "%.0f%%", p3[6]),
                    Long.toString((long) p3[3])
                });
            }
            String report = report(rows, pg.version(), pinning, cpus);
            Files.createDirectories(out);
            Files.writeString(out.resolve("RESULTS.md"), report);
            System.out.println(report);
        }
        System.exit(0);
    }

    // ---- scenarios ----

    /**
     * P1 for every library, in turns: each library's client (own pool) runs {@link #P1_TURN}, then
     * the next, {@link #P1_TURNS} times. Per library: p50, p99, pairs, and the median over turns of
     * (this library's p50 in the turn / the floor's p50 in the same round).
     */
    private static double[][] p1(String url) throws Exception {
        Peer[] peers = Peer.values();
        List<Client> clients = new ArrayList<>();
        try {
            List<Lock> locks = new ArrayList<>();
            for (Peer peer : peers) {
                Client c = open(peer, url, 1);
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
            clients.forEach(Client::close);
        }
    }

    private static double[] p3(Peer peer, String url) throws Exception {
        List<Client> clients = new ArrayList<>();
        try {
            for (int i = 0; i < P3_CLIENTS; i++) {
                clients.add(open(peer, url, P3_THREADS));
            }
            String name = "p3-" + peer;
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
                Client c = clients.get(ci);
                int clientIndex = ci;
                for (int t = 0; t < P3_THREADS; t++) {
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
                                    releasedAt.set(System.nanoTime());
                                    lock.unlock();
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
            clients.forEach(Client::close);
        }
    }

    // ---- the libraries ----

    private static Client open(Peer peer, String url, int threads) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(threads + 1);
        config.setMinimumIdle(threads + 1);
        HikariDataSource pool = new HikariDataSource(config);
        return switch (peer) {
            case FLOOR -> floor(pool);
            case LOCKKIT -> lockkit(pool);
            case SPRING -> spring(pool);
        };
    }

    private static Client lockkit(HikariDataSource pool) {
        JdbcLockProvider provider = JdbcLockProvider.create(pool);
        DistributedLockFactory f = DistributedLockFactory.create(provider);
        return new Client() {
            @Override
            public Lock lock(String name) {
                DistributedLock l = f.getLock(name);
                return l;
            }

            @Override
            public void close() {
                f.close();
                provider.close();
                pool.close();
            }
        };
    }

    private static Client spring(HikariDataSource pool) {
        DefaultLockRepository repository =
                new DefaultLockRepository(pool, UUID.randomUUID().toString());
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        return new Client() {
            @Override
            public Lock lock(String name) {
                return registry.obtain(name);
            }

            @Override
            public void close() {
                repository.close();
                pool.close();
            }
        };
    }

    /** One INSERT … ON CONFLICT to acquire, one DELETE to release; waiters poll every millisecond. */
    private static Client floor(HikariDataSource pool) {
        return new Client() {
            @Override
            public Lock lock(String name) {
                return new FloorLock(pool, name);
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }

    private static final class FloorLock implements Lock {
        private static final String ACQUIRE =
                "INSERT INTO floor_locks AS l VALUES (?, ?, clock_timestamp() + interval '30 seconds')"
                        + " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires"
                        + " WHERE l.expires < clock_timestamp() RETURNING 1";
        private static final String RELEASE = "DELETE FROM floor_locks WHERE name = ? AND owner = ?";
        private final DataSource pool;
        private final String name;

        FloorLock(DataSource pool, String name) {
            this.pool = pool;
            this.name = name;
        }

        @Override
        public void lock() {
            String owner = Thread.currentThread().getName() + "-" + System.identityHashCode(this);
            while (!attempt(owner)) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }

        private boolean attempt(String owner) {
            try (Connection c = pool.getConnection();
                    PreparedStatement s = c.prepareStatement(ACQUIRE)) {
                s.setString(1, name);
                s.setString(2, owner);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next();
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void unlock() {
            String owner = Thread.currentThread().getName() + "-" + System.identityHashCode(this);
            try (Connection c = pool.getConnection();
                    PreparedStatement s = c.prepareStatement(RELEASE)) {
                s.setString(1, name);
                s.setString(2, owner);
                if (s.executeUpdate() != 1) {
                    throw new IllegalStateException("floor lock " + name + " was not held by " + owner);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void lockInterruptibly() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.concurrent.locks.Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }

    // ---- plumbing ----

    private static String springLockTable() throws IOException {
        try (InputStream in = JdbcLockRegistry.class.getResourceAsStream(
                "/org/springframework/integration/jdbc/schema-postgresql.sql")) {
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int from = sql.indexOf("CREATE TABLE INT_LOCK");
            return sql.substring(from, sql.indexOf(';', from));
        }
    }

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

    private static String report(List<String[]> rows, String version, String pinning, int cpus) {
        StringBuilder b = new StringBuilder();
        b.append("# JDBC lock benchmarks (P1, P3) on PostgreSQL\n\n");
        b.append("Generated ")
                .append(ZonedDateTime.now(ZoneOffset.UTC).withNano(0))
                .append(" by\n\n```sh\n")
                .append("mvn -B -q -o -pl lock-benchmarks -am package -DskipTests && cd lock-benchmarks && \\\n")
                .append(
                        "  java -cp target/classes:'target/lib/*' io.lockkit.benchmarks.JdbcBenchmarkMain results/jdbc\n```\n\n");
        b.append(String.format(
                Locale.ROOT,
                "PostgreSQL %s (embedded binaries, loopback), JDK %s, %d CPUs, %s. One run.%n%n",
                version,
                System.getProperty("java.version"),
                cpus,
                pinning));
        b.append(
                "P1: one thread, lock + unlock of an uncontended name (the pair's latency); the libraries take turns of 0.5 s, 10 turns each,\n"
                        + "so that load from elsewhere falls on all alike; \"P1 × floor\" is the median over turns of the p50 against the floor's in the same round.\n"
                        + "P3: 4 clients (own pools) × 8 threads, one hot name, no pause; hand-off = from the releasing thread's unlock call to the next\n"
                        + "holder's lock return, also split by whether the next holder is of the releasing client (same) or of another (other).\n"
                        + "floor = one INSERT … ON CONFLICT DO UPDATE … WHERE expired to acquire, one DELETE to release, waiters poll every 1 ms;\n"
                        + "spring = Spring Integration 7.1.2 `JdbcLockRegistry` over `DefaultLockRepository` (polls every 100 ms, its default).\n"
                        + "Every library on HikariCP pools of the same size.\n\n");
        b.append(
                "| library | P1 p50 µs | P1 p99 µs | P1 × floor | P3 acquisitions/s | P3 hand-off p50 µs | P3 hand-off p99 µs"
                        + " | same client p50 µs | other client p50 µs | same client share | P3 lost updates |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (String[] r : rows) {
            b.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        return b.toString();
    }

    private static String fmt(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[jdbc-bench] " + format + "%n", args);
    }
}
