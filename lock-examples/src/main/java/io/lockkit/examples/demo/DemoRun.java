package io.lockkit.examples.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * One run of the demo, the coordinator: gets the backend, starts the worker JVMs, lets them go all
 * at once, prints the counter's progress until they are done, and hands their results to
 * {@link DemoReport}. Whatever happens, {@link #execute} leaves no worker or server behind: it
 * cleans up in a finally block, and in a shutdown hook when the JVM is stopped (Ctrl-C).
 */
final class DemoRun {

    private static final Duration PROGRESS_INTERVAL = Duration.ofMillis(500);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final DemoOptions options;
    private final PrintStream out;
    private final String lockName;
    private final String counterKey;
    private final DemoBackend backend;
    private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
    private final ReentrantLock cleanup = new ReentrantLock();

    private volatile Path workDir;
    private boolean cleanedUp;
    private long lastProgress = -1;
    /** Set by the shutdown hook: the JVM is going down, so the main thread stops talking. */
    private volatile boolean stopping;

    DemoRun(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        String run = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);
        this.lockName = "counter-demo-" + run;
        this.counterKey = "lockkit-demo:" + run + ":counter";
        this.backend = new DemoBackend(options, counterKey, out);
    }

    /** Runs the demo and returns its exit status. */
    int execute() {
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
                return CounterDemo.EXIT_FAILED;
            }
            out.println();
            out.println("FAILED: " + e.getMessage());
            return CounterDemo.EXIT_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println();
            out.println("FAILED: interrupted");
            return CounterDemo.EXIT_FAILED;
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
                backend.jdbc() ? "SELECT" : "GET",
                options.pauseMillis,
                backend.jdbc() ? "UPDATE" : "SET",
                options.useLock ? "holding lock \"" + lockName + "\"" : "WITHOUT the lock (--no-lock)");

        backend.start();
        startWorkers();
        awaitReady();
        for (WorkerProcess w : workers) {
            w.send(CounterWorker.GO);
        }
        boolean timedOut = showProgressUntilDone(expected);
        for (WorkerProcess w : workers) {
            w.drainOutput();
        }
        long found = backend.readCounter();
        return new DemoReport(options, counterKey, out).summarize(workers, expected, found, timedOut);
    }

    private void startWorkers() {
        List<String> launcher = WorkerProcess.launcher();
        try {
            workDir = Files.createTempDirectory("lockkit-counter-demo-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the workers' results", e);
        }
        for (int i = 1; i <= options.workers; i++) {
            Path result = workDir.resolve("worker-" + i + ".txt");
            List<String> arguments = List.of(
                    "worker=" + i,
                    "lock=" + lockName,
                    "counter=" + counterKey,
                    "threads=" + options.threads,
                    "increments=" + options.increments,
                    "pause-ms=" + options.pauseMillis,
                    "use-lock=" + options.useLock,
                    "result=" + result,
                    "backend=" + options.backend);
            workers.add(WorkerProcess.start(i, launcher, arguments, backend.uri(), result, out));
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
        for (WorkerProcess w : workers) {
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
            WorkerProcess running = workers.stream()
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
                WorkerProcess.stop(workers);
                return true;
            }
        }
    }

    private void printProgress(long expected) {
        if (stopping) {
            throw new DemoFailure("interrupted");
        }
        try {
            long value = backend.readCounter();
            if (value == lastProgress) {
                return;
            }
            lastProgress = value;
            out.printf(Locale.ROOT, "progress: %,d/%,d (%d%%)%n", value, expected, value * 100 / expected);
        } catch (RuntimeException e) {
            out.println("progress: cannot read the counter: " + e.getMessage());
        }
    }

    /** Stops the workers and the server this demo started, and removes the result files; idempotent. */
    private void cleanUp() {
        cleanup.lock();
        try {
            if (cleanedUp) {
                return;
            }
            cleanedUp = true;
            if (workers.stream().anyMatch(w -> w.process.isAlive())) {
                WorkerProcess.stop(workers);
            }
            for (WorkerProcess w : workers) {
                w.closeInput();
            }
            backend.close();
            deleteResults();
        } finally {
            cleanup.unlock();
        }
    }

    private void deleteResults() {
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
    }
}
