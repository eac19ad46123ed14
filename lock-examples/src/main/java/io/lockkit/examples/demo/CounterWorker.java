package io.lockkit.examples.demo;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.jedis.JedisLockProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One worker JVM of the {@link CounterDemo}: its threads each run
 * {@link CounterDemo#incrementUnderTheLock}, incrementing the shared counter by {@code GET}, pause,
 * {@code SET} (with {@code backend=jdbc}: {@code SELECT}, pause, {@code UPDATE} of a row, the lock a
 * {@link JdbcLockProvider}'s), holding the lock around the three steps. Started by the demo, not by
 * hand.
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
        this.uri = System.getenv(WorkerProcess.URI_VARIABLE);
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("the environment variable " + WorkerProcess.URI_VARIABLE
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
                Counters counters = Counters.open(jdbc, uri, counterKey)) {
            System.out.println(READY);
            System.out.flush();
            if (!GO.equals(readLine(coordinator))) {
                System.err.println("the coordinator went away before the start");
                return EXIT_ORPHANED;
            }
            watchCoordinator(coordinator);

            ThreadRun[] runs = new ThreadRun[threads];
            Thread[] running = new Thread[threads];
            Instant start = Instant.now();
            for (int t = 0; t < threads; t++) {
                ThreadRun run = new ThreadRun();
                runs[t] = run;
                Counters.Counter counter = counters.forThread();
                running[t] = new Thread(
                        () -> runThread(locks.getLock(lockName), counter, run), "counter-worker-" + worker + "-" + t);
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
                            flatten(runs, r -> r.waits, useLock),
                            flatten(runs, r -> r.tokens, true),
                            flatten(runs, r -> r.values, true))
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

    /** One thread: {@link CounterDemo#incrementUnderTheLock}, its failure kept for the worker's report. */
    private void runThread(DistributedLock lock, Counters.Counter counter, ThreadRun run) {
        try {
            CounterDemo.incrementUnderTheLock(lock, counter, run);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(Thread.currentThread().getName() + ": interrupted");
        } catch (SQLException | RuntimeException e) {
            failures.add(Thread.currentThread().getName() + ": " + e);
        }
    }

    /**
     * One thread's settings and measurements, and the worker's totals they add to. Slots of
     * acquisitions and writes the thread did not make stay -1; token and value are recorded inside
     * the critical section, so the lock orders them. Used by its one thread; the totals are atomic.
     */
    final class ThreadRun {
        final long[] waits = new long[increments];
        final long[] tokens = new long[useLock ? increments : 0];
        final long[] values = new long[useLock ? increments : 0];

        ThreadRun() {
            Arrays.fill(waits, -1);
            Arrays.fill(tokens, -1);
            Arrays.fill(values, -1);
        }

        int increments() {
            return increments;
        }

        int pauseMillis() {
            return pauseMillis;
        }

        boolean useLock() {
            return useLock;
        }

        /** Increment {@code i} got the lock (or, without it, started) after asking at {@code askedNanos}. */
        void waited(int i, long askedNanos) {
            waits[i] = (System.nanoTime() - askedNanos) / 1_000;
        }

        /** Increment {@code i} wrote {@code value} under {@code token}. */
        void wrote(int i, long token, long value) {
            made.incrementAndGet();
            if (useLock) {
                if (lastToken.getAndSet(token) >= token) {
                    tokensOutOfOrder.incrementAndGet();
                }
                tokens[i] = token;
                values[i] = value;
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
    private static long[] flatten(ThreadRun[] runs, Function<ThreadRun, long[]> row, boolean keep) {
        if (!keep) {
            return new long[0];
        }
        return Arrays.stream(runs)
                .flatMapToLong(r -> Arrays.stream(row.apply(r)))
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
