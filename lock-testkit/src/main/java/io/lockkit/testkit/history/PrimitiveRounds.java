package io.lockkit.testkit.history;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The fault driver of a {@link PrimitiveHistory} run: its faults one at a time, round after round,
 * with a pause after each in which the workers go on, until the run is long enough; after each
 * fault, the next acquisition awaited (progress). Used by the run's driver thread only.
 */
// Design notes.
// - Progress is a bound on the time to the first acquisition after each fault, not a rate: a loaded
//   machine slows a run down, but only a deadlock (or a name never freed) stops it.
final class PrimitiveRounds {

    private final List<WorkerHistoryBuilder.NamedFault> steps;
    private final Runnable cleanUp;
    private final PrimitiveWorkerOutput output;
    private final int minRounds;
    private final int minAcquisitions;
    private final Duration spacing;
    private final Duration progressBound;
    private final Map<String, Integer> injected = new LinkedHashMap<>();
    private final List<String> stalls = new CopyOnWriteArrayList<>();
    private int rounds;

    PrimitiveRounds(
            List<WorkerHistoryBuilder.NamedFault> steps,
            Runnable cleanUp,
            PrimitiveWorkerOutput output,
            int minRounds,
            int minAcquisitions,
            Duration spacing,
            Duration progressBound) {
        this.steps = List.copyOf(steps);
        this.cleanUp = cleanUp;
        this.output = output;
        this.minRounds = minRounds;
        this.minAcquisitions = minAcquisitions;
        this.spacing = spacing;
        this.progressBound = progressBound;
    }

    /**
     * Awaits the workers' first acquisition, then runs rounds until the run has its acquisitions
     * and rounds, {@code maxRun} passed since {@code start}, a worker thread died or the workers
     * stalled.
     */
    void run(long start, Duration maxRun) throws Exception {
        awaitProgress("the workers started");
        while ((output.acquisitions() < minAcquisitions || rounds < minRounds)
                && System.nanoTime() - start < maxRun.toNanos()
                && output.deaths().isEmpty()
                && stalls.isEmpty()) {
            round();
        }
    }

    /**
     * One round of faults. Once the rounds asked for are done, a further round ends at the first
     * fault after the run has its acquisitions, so a run is not longer than it needs.
     */
    private void round() throws Exception {
        for (WorkerHistoryBuilder.NamedFault f : steps) {
            if (rounds >= minRounds && output.acquisitions() >= minAcquisitions) {
                return;
            }
            try {
                f.action().inject();
            } finally {
                cleanUp.run();
            }
            injected.merge(f.name(), 1, Integer::sum);
            awaitProgress(f.name());
            if (!stalls.isEmpty()) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(spacing.toMillis());
        }
        if (steps.isEmpty()) {
            TimeUnit.MILLISECONDS.sleep(spacing.toMillis()); // no faults: the run only waits
        }
        rounds++;
    }

    /**
     * Waits for the next acquisition the workers report; when none comes within the bound, records
     * a stall (the workers deadlocked, or a name was never freed).
     */
    private void awaitProgress(String after) throws InterruptedException {
        int before = output.acquisitions();
        long deadline = System.nanoTime() + progressBound.toNanos();
        while (output.acquisitions() == before && output.deaths().isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                stalls.add("no acquisition within " + progressBound.toMillis() + " ms after " + after + " (rounds "
                        + rounds + ", acquisitions " + before + ")");
                return;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    /** How often each fault was injected, by name. */
    Map<String, Integer> injected() {
        return Map.copyOf(injected);
    }

    /** The full rounds done. */
    int rounds() {
        return rounds;
    }

    /** The faults after which the workers did not acquire in time. */
    List<String> stalls() {
        return List.copyOf(stalls);
    }
}
