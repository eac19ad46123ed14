package io.lockkit.examples.demo;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.jedis.JedisLockProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.RedisClient;

/**
 * One worker JVM of the {@link CounterDemo}: its threads each increment the shared counter by
 * {@code GET}, pause, {@code SET} (with {@code backend=jdbc}: {@code SELECT}, pause, {@code UPDATE}
 * of a row, the lock a {@link JdbcLockProvider}'s), holding the lock around the three steps.
 * Started by the demo, not by hand.
 *
 * <p>Protocol with the coordinator: arguments are {@code name=value} pairs, the Redis URI (or JDBC URL) comes in
 * the environment variable {@code LOCKKIT_DEMO_REDIS_URI} (it may hold a password); the worker prints
 * {@value #READY} once connected, starts on a {@value #GO} line on its standard input, exits when
 * that input closes (the coordinator is gone), and leaves its measurements in the {@code result}
 * file (see {@link WorkerResult}). Exit status 0 when every increment went through, 1 when some
 * failed, 2 for bad arguments, 4 when the coordinator went away.
 */
public final class CounterWorker {

    static final String READY = "READY";
    static final String GO = "GO";
    static final int EXIT_OK = 0;
    static final int EXIT_FAILURES = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_ORPHANED = 4;

    private final int worker;
    private final String uri;
    private final String lockName;
    private final String counterKey;
    private final int threads;
    private final int increments;
    private final int pauseMillis;
    private final boolean useLock;
    private final Path resultFile;
    private final boolean jdbc;

    private final AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong tokensOutOfOrder = new AtomicLong();
    private final AtomicLong made = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();

    private CounterWorker(Map<String, String> args) {
        this.worker = Integer.parseInt(require(args, "worker"));
        this.uri = System.getenv(CounterDemo.WORKER_URI_VARIABLE);
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("the environment variable " + CounterDemo.WORKER_URI_VARIABLE
                    + " must name the Redis, e.g. redis://127.0.0.1:6379");
        }
        this.lockName = require(args, "lock");
        this.counterKey = require(args, "counter");
        this.threads = Integer.parseInt(require(args, "threads"));
        this.increments = Integer.parseInt(require(args, "increments"));
        this.pauseMillis = Integer.parseInt(require(args, "pause-ms"));
        this.useLock = Boolean.parseBoolean(require(args, "use-lock"));
        this.resultFile = Path.of(require(args, "result"));
        this.jdbc = "jdbc".equals(args.getOrDefault("backend", "redis"));
    }

    /** Runs the worker; see the class comment for the arguments and the exit status. */
    public static void main(String[] args) {
        CounterWorker w;
        try {
            w = new CounterWorker(parse(args));
        } catch (IllegalArgumentException e) {
            System.err.println("CounterWorker: " + e.getMessage());
            System.exit(EXIT_USAGE);
            return;
        }
        System.exit(w.run());
    }

    private int run() {
        BufferedReader coordinator = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // The factory owns the provider and closes it with itself.
        try (DistributedLockFactory locks = jdbc
                        ? DistributedLockFactory.create(JdbcLockProvider.create(uri))
                        : DistributedLockFactory.create(JedisLockProvider.create(uri));
                Counters counters = jdbc ? new JdbcCounters(uri, counterKey) : new RedisCounters(uri, counterKey)) {
            System.out.println(READY);
            System.out.flush();
            if (!GO.equals(readLine(coordinator))) {
                System.err.println("the coordinator went away before the start");
                return EXIT_ORPHANED;
            }
            watchCoordinator(coordinator);

            long[][] waits = new long[threads][];
            long[][] tokens = new long[threads][];
            long[][] values = new long[threads][];
            Thread[] running = new Thread[threads];
            Instant start = Instant.now();
            for (int t = 0; t < threads; t++) {
                int index = t;
                waits[t] = new long[increments];
                tokens[t] = new long[useLock ? increments : 0];
                values[t] = new long[useLock ? increments : 0];
                Counter counter = counters.forThread();
                running[t] = new Thread(
                        () -> increment(locks.getLock(lockName), counter, waits[index], tokens[index], values[index]),
                        "counter-worker-" + worker + "-" + t);
                running[t].start();
            }
            for (Thread t : running) {
                t.join();
            }
            Instant end = Instant.now();

            new WorkerResult(
                            worker,
                            made.get(),
                            failures.size(),
                            micros(start),
                            micros(end),
                            tokensOutOfOrder.get() == 0,
                            flatten(waits, useLock),
                            flatten(tokens, true),
                            flatten(values, true))
                    .write(resultFile);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
        } catch (IOException | SQLException | RuntimeException e) {
            failures.add(e.toString());
            e.printStackTrace();
        }
        for (String failure : failures) {
            System.err.println("failure: " + failure);
        }
        return failures.isEmpty() ? EXIT_OK : EXIT_FAILURES;
    }

    /**
     * One thread's loop. Slots of acquisitions and writes it did not make stay -1; token and value
     * are recorded inside the critical section, so the lock orders them.
     */
    private void increment(DistributedLock lock, Counter counter, long[] waits, long[] tokens, long[] values) {
        Arrays.fill(waits, -1);
        Arrays.fill(tokens, -1);
        Arrays.fill(values, -1);
        try {
            for (int i = 0; i < increments; i++) {
                long asked = System.nanoTime();
                if (useLock) {
                    lock.lock();
                }
                waits[i] = (System.nanoTime() - asked) / 1_000;
                try {
                    // The token a real application would hand to the resource it protects.
                    long token = useLock ? lock.fencingToken() : 0;
                    long next = counter.read() + 1;
                    if (pauseMillis > 0) {
                        Thread.sleep(pauseMillis);
                    }
                    counter.write(next);
                    made.incrementAndGet();
                    if (useLock) {
                        if (lastToken.getAndSet(token) >= token) {
                            tokensOutOfOrder.incrementAndGet();
                        }
                        tokens[i] = token;
                        values[i] = next;
                    }
                } finally {
                    if (useLock) {
                        lock.unlock();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(Thread.currentThread().getName() + ": interrupted");
        } catch (SQLException | RuntimeException e) {
            failures.add(Thread.currentThread().getName() + ": " + e);
        }
    }

    /** One thread's view of the shared counter. */
    private interface Counter {
        long read() throws SQLException;

        void write(long value) throws SQLException;
    }

    /** Where the counter lives; {@link #forThread()} before the threads start. */
    private interface Counters extends AutoCloseable {
        Counter forThread() throws SQLException;

        @Override
        void close() throws SQLException;
    }

    /** The counter as a Redis key; one client for all threads. */
    private static final class RedisCounters implements Counters {
        private final RedisClient client;
        private final String key;

        RedisCounters(String uri, String key) {
            this.client = RedisClient.create(URI.create(uri));
            this.key = key;
            client.ping();
        }

        @Override
        public Counter forThread() {
            return new Counter() {
                @Override
                public long read() {
                    String current = client.get(key);
                    return current == null ? 0 : Long.parseLong(current);
                }

                @Override
                public void write(long value) {
                    client.set(key, Long.toString(value));
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** The counter as a row of {@link CounterDemo#COUNTER_TABLE}; a connection per thread, in autocommit. */
    private static final class JdbcCounters implements Counters {
        private final String url;
        private final String name;
        private final Queue<Connection> connections = new ConcurrentLinkedQueue<>();

        JdbcCounters(String url, String name) throws SQLException {
            this.url = url;
            this.name = name;
            forThread().read();
        }

        @Override
        public Counter forThread() throws SQLException {
            Connection c = DriverManager.getConnection(url);
            connections.add(c);
            PreparedStatement select =
                    c.prepareStatement("SELECT value FROM " + CounterDemo.COUNTER_TABLE + " WHERE name = ?");
            PreparedStatement update =
                    c.prepareStatement("UPDATE " + CounterDemo.COUNTER_TABLE + " SET value = ? WHERE name = ?");
            select.setString(1, name);
            update.setString(2, name);
            return new Counter() {
                @Override
                public long read() throws SQLException {
                    try (ResultSet rs = select.executeQuery()) {
                        if (!rs.next()) {
                            throw new SQLException("the counter row " + name + " is gone");
                        }
                        return rs.getLong(1);
                    }
                }

                @Override
                public void write(long value) throws SQLException {
                    update.setLong(1, value);
                    update.executeUpdate();
                }
            };
        }

        @Override
        public void close() throws SQLException {
            SQLException first = null;
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /** Exits when the coordinator's end of standard input closes, so no worker outlives it. */
    private static void watchCoordinator(BufferedReader coordinator) {
        Thread watch = new Thread(
                () -> {
                    while (readLine(coordinator) != null) {
                        // Nothing else is sent after GO; only the end of the stream matters.
                    }
                    System.err.println("the coordinator went away; stopping");
                    System.exit(EXIT_ORPHANED);
                },
                "coordinator-watch");
        watch.setDaemon(true);
        watch.start();
    }

    private static String readLine(BufferedReader in) {
        try {
            return in.readLine();
        } catch (IOException e) {
            return null;
        }
    }

    /** Concatenates the rows, keeping only non-negative entries (slots of increments made). */
    private static long[] flatten(long[][] rows, boolean keep) {
        if (!keep) {
            return new long[0];
        }
        return Arrays.stream(rows)
                .flatMapToLong(Arrays::stream)
                .filter(v -> v >= 0)
                .toArray();
    }

    private static long micros(Instant instant) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> map = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("arguments are name=value pairs, got " + arg);
            }
            map.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return map;
    }

    private static String require(Map<String, String> args, String name) {
        String value = args.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing argument " + name + "=...");
        }
        return value;
    }
}
