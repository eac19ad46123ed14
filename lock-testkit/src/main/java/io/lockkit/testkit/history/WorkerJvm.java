package io.lockkit.testkit.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One worker JVM of a multi-process history run ({@link LeadershipHistory}, {@link PrimitiveHistory}):
 * started with this JVM's {@code java} and class path, the backend's address in
 * {@value LeaderWorker#ADDRESS_VARIABLE}; its output read by a thread of its own, protocol lines
 * (prefixed {@value LeaderWorker#PREFIX}) split into fields for the run's parser, other lines (logs)
 * kept as a short tail for failure messages. Signals go by {@code kill}, to this process only.
 * Thread-safe.
 */
final class WorkerJvm {

    private static final int TAIL_LINES = 30;

    final int index;
    final Process process;
    final Thread reader;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Deque<String> tail = new ArrayDeque<>();

    private WorkerJvm(int index, Process process, Consumer<String[]> protocol) {
        this.index = index;
        this.process = process;
        this.reader = new Thread(() -> read(protocol), "history-worker-" + index + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code main} with {@code args} in a new JVM and waits for its {@code READY} line;
     * {@code protocol} receives each protocol line's fields on the reader thread.
     *
     * @throws IllegalStateException when it is not ready within {@code readyTimeout}
     */
    static WorkerJvm start(
            int index,
            Class<?> main,
            List<String> jvmOptions,
            Map<String, String> args,
            String address,
            Duration readyTimeout,
            Consumer<String[]> protocol)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        args.forEach((k, v) -> command.add(k + "=" + v));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put(LeaderWorker.ADDRESS_VARIABLE, address);
        WorkerJvm w = new WorkerJvm(index, pb.start(), protocol);
        if (!w.ready.await(readyTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            w.process.destroyForcibly();
            throw new IllegalStateException("worker " + index + " not ready within " + readyTimeout + ": " + w.tail());
        }
        return w;
    }

    private void read(Consumer<String[]> protocol) {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith(LeaderWorker.PREFIX)) {
                    String[] fields =
                            line.substring(LeaderWorker.PREFIX.length()).split(" ", -1);
                    if (fields[0].equals("READY")) {
                        ready.countDown();
                    }
                    protocol.accept(fields);
                } else {
                    synchronized (tail) {
                        tail.addLast(line);
                        if (tail.size() > TAIL_LINES) {
                            tail.removeFirst();
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT}) to this worker. */
    void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + process.pid(), e);
        }
    }

    /** Kills it ({@code kill -9}) and waits for it to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Asks it to quit (a line {@code quit} on its input), if it is alive. */
    void askToQuit() {
        if (process.isAlive()) {
            try {
                OutputStream in = process.getOutputStream();
                in.write("quit\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            } catch (IOException e) {
                // gone meanwhile
            }
        }
    }

    /** Waits up to {@code grace} for it to quit, kills it otherwise, and waits for its output to be read. */
    void awaitQuit(Duration grace) throws InterruptedException {
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
    }

    /** Asks every worker to quit, then waits for each (see {@link #awaitQuit}). */
    static void stopAll(List<WorkerJvm> workers, Duration grace) throws InterruptedException {
        workers.forEach(WorkerJvm::askToQuit);
        for (WorkerJvm w : workers) {
            w.awaitQuit(grace);
        }
    }

    /** The last lines of its output that were not protocol lines. */
    List<String> tail() {
        synchronized (tail) {
            return List.copyOf(tail);
        }
    }

    /** Every worker's pid and last log lines, for a failure message. */
    static String logs(List<WorkerJvm> workers) {
        StringBuilder logs = new StringBuilder();
        for (WorkerJvm w : workers) {
            logs.append("worker ")
                    .append(w.index)
                    .append(" (pid ")
                    .append(w.process.pid())
                    .append("):\n");
            w.tail().forEach(l -> logs.append("  ").append(l).append('\n'));
        }
        return logs.toString();
    }

    @Override
    public String toString() {
        return "worker " + index + " " + tail();
    }
}
