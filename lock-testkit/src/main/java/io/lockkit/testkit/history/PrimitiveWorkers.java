package io.lockkit.testkit.history;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The worker JVMs of one {@link PrimitiveHistory} run ({@link PrimitiveWorker}s) and the faults
 * aimed at them: the busiest worker paused past the lease, the busiest killed and replaced. Every
 * worker reports to the run's {@link PrimitiveWorkerOutput}. Used by the run's driver thread;
 * {@link #size()} and {@link #logs()} from any thread.
 */
final class PrimitiveWorkers {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final List<WorkerJvm> all = new CopyOnWriteArrayList<>();
    private final List<String> jvmOptions;
    private final Map<String, String> arguments;
    private final String address;
    private final PrimitiveWorkerOutput output;

    PrimitiveWorkers(
            List<String> jvmOptions, Map<String, String> arguments, String address, PrimitiveWorkerOutput output) {
        this.jvmOptions = List.copyOf(jvmOptions);
        this.arguments = Map.copyOf(arguments);
        this.address = address;
        this.output = output;
    }

    /** Starts one more worker and waits for it to be ready. */
    void start() throws IOException, InterruptedException {
        int index = all.size();
        all.add(WorkerJvm.start(
                index,
                PrimitiveWorker.class,
                jvmOptions,
                arguments,
                address,
                READY_TIMEOUT,
                f -> output.accept(index, f)));
    }

    /** Stops the busiest live worker (SIGSTOP) for {@code pause}, then resumes it (SIGCONT). */
    void pauseBusiest(Duration pause) throws InterruptedException {
        WorkerJvm paused = busiestAlive();
        paused.signal("STOP");
        try {
            TimeUnit.MILLISECONDS.sleep(pause.toMillis());
        } finally {
            paused.signal("CONT");
        }
    }

    /** Kills the busiest live worker ({@code kill -9}) and starts a fresh one in its place. */
    void killBusiestAndReplace() throws IOException, InterruptedException {
        busiestAlive().kill();
        start(); // keep the number of clients
    }

    /** Asks every worker to quit, and kills those still running after {@code grace}. */
    void stopAll(Duration grace) throws InterruptedException {
        WorkerJvm.stopAll(all, grace);
    }

    /** How many workers were started, replacements included. */
    int size() {
        return all.size();
    }

    /** Every worker's pid and last log lines, for a failure message. */
    String logs() {
        return WorkerJvm.logs(all);
    }

    /** The live worker that reported the most holds: it is the likeliest to be inside one now. */
    private WorkerJvm busiestAlive() {
        WorkerJvm busiest = null;
        for (WorkerJvm w : all) {
            if (w.process.isAlive()
                    && (busiest == null || output.acquisitionsOf(w.index) > output.acquisitionsOf(busiest.index))) {
                busiest = w;
            }
        }
        if (busiest == null) {
            throw new IllegalStateException("no worker alive:\n" + logs());
        }
        return busiest;
    }
}
