package io.lockkit.examples.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A worker JVM of a demo run, its result file, and the thread that copies its output to the demo's
 * (prefixed {@code [worker N]}), watching for its {@value CounterWorker#READY} line. Workers start
 * with the same java binary and class path as the demo, held at a start line ({@code READY}, then
 * {@code GO} on their standard input) so JVM start-up does not count; they exit when their standard
 * input closes, so none outlives the demo.
 */
final class WorkerProcess {

    /**
     * The environment variable that hands the Redis URI or, with {@code --backend=jdbc}, the JDBC URL
     * (perhaps with a password) to workers, off their command line.
     */
    static final String URI_VARIABLE = "LOCKKIT_DEMO_REDIS_URI";

    /** Small heaps and the serial collector: the workers are tiny, and the machine may have two cores. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-XX:+UseSerialGC");

    private static final Duration STOP_GRACE = Duration.ofSeconds(3);
    private static final Duration OUTPUT_DRAIN = Duration.ofSeconds(2);

    final int index;
    final Process process;
    final Path resultFile;
    final CountDownLatch ready = new CountDownLatch(1);
    private final PrintStream out;
    private final Thread pump;

    private WorkerProcess(int index, Process process, Path resultFile, PrintStream out) {
        this.index = index;
        this.process = process;
        this.resultFile = resultFile;
        this.out = out;
        this.pump = new Thread(this::copyOutput, "counter-demo-worker-" + index + "-output");
        this.pump.setDaemon(true);
    }

    /** The command line up to the worker's arguments: this JVM's java binary and class path, and the worker's main class. */
    static List<String> launcher() {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElseGet(() ->
                        Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(JVM_OPTIONS);
        command.addAll(List.of("-cp", WorkerClassPath.resolve(), CounterWorker.class.getName()));
        return command;
    }

    /**
     * Starts worker {@code index} by the {@link #launcher()} with its {@link CounterWorker} arguments
     * ({@code name=value}) and the backend's URI in {@link #URI_VARIABLE}, and starts copying its output.
     */
    static WorkerProcess start(
            int index, List<String> launcher, List<String> arguments, String uri, Path resultFile, PrintStream out) {
        String java = launcher.get(0);
        List<String> command = new ArrayList<>(launcher);
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put(URI_VARIABLE, uri);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start worker " + index + " with " + java, e);
        }
        WorkerProcess worker = new WorkerProcess(index, process, resultFile, out);
        worker.pump.start();
        return worker;
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

    /** Closes their input, asks them to stop, and kills those still running after a grace period. */
    static void stop(List<WorkerProcess> workers) {
        for (WorkerProcess w : workers) {
            w.closeInput();
        }
        for (WorkerProcess w : workers) {
            w.process.destroy();
        }
        for (WorkerProcess w : workers) {
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
}
