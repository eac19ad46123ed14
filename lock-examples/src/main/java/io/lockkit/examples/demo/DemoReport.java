package io.lockkit.examples.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The verdict of a demo run: reads the workers' result files, prints the increments expected, made
 * and found, the lost updates, the lock's rate and waits and the fencing-token check, and returns
 * the demo's exit status. Safety failures (lost updates, tokens out of order) are the headline even
 * when a worker failed as well. Used once, by the coordinator's thread.
 */
final class DemoReport {

    private final DemoOptions options;
    private final String counterKey;
    private final PrintStream out;

    DemoReport(DemoOptions options, String counterKey, PrintStream out) {
        this.options = options;
        this.counterKey = counterKey;
        this.out = out;
    }

    /** Prints the summary of the finished (or timed out) workers and returns the exit status. */
    int summarize(List<WorkerProcess> workers, long expected, long found, boolean timedOut) {
        List<String> problems = new ArrayList<>();
        if (timedOut) {
            problems.add("the workers did not finish within " + options.timeout.toSeconds() + " s");
        }
        List<WorkerResult> results = read(workers, timedOut, problems);
        // Every worker reports how many increments it made; a worker that failed may have made fewer
        // than asked, and then only those count. Without a report from each, losses cannot be told.
        boolean allReported = results.size() == workers.size();
        long made = results.stream().mapToLong(r -> r.increments).sum();
        long lost = allReported ? made - found : 0;

        printCounts(expected, found, made, lost, allReported, results.size(), workers.size());
        String tokenProblem = printRates(results, made);
        long exitedZero = workers.stream()
                .filter(w -> !w.process.isAlive() && w.process.exitValue() == 0)
                .count();
        out.printf(Locale.ROOT, "workers:             %d of %d exited with status 0%n", exitedZero, workers.size());
        out.println();
        return verdict(problems, lost, made, tokenProblem);
    }

    private List<WorkerResult> read(List<WorkerProcess> workers, boolean timedOut, List<String> problems) {
        List<WorkerResult> results = new ArrayList<>();
        for (WorkerProcess w : workers) {
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
        return results;
    }

    private void printCounts(
            long expected, long found, long made, long lost, boolean allReported, int reported, int workers) {
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
            out.printf(Locale.ROOT, "lost updates:        unknown: %d of %d workers reported%n", reported, workers);
        }
    }

    /** Prints the rate and the waits (and, under the lock, the tokens); returns what is wrong with the tokens, or null. */
    private String printRates(List<WorkerResult> results, long made) {
        double seconds = activeSeconds(results);
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
                return checkTokens(results);
            }
        } else if (!results.isEmpty()) {
            out.printf(
                    Locale.ROOT,
                    "increments made:     %,d in %.1f s = %,.0f per second, with no lock%n",
                    made,
                    seconds,
                    seconds > 0 ? made / seconds : 0.0);
        }
        return null;
    }

    private int verdict(List<String> problems, long lost, long made, String tokenProblem) {
        if (lost == 0 && tokenProblem == null) {
            if (!problems.isEmpty()) {
                out.println("FAILED: " + String.join("; ", problems));
                return CounterDemo.EXIT_FAILED;
            }
            out.println(
                    options.useLock
                            ? "OK: no lost updates; the lock kept every read-pause-write exclusive, in fencing-token order"
                            : "OK: no lost updates, by luck: without the lock nothing prevents them"
                                    + " (try more threads or a longer pause)");
            return CounterDemo.EXIT_OK;
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
        return CounterDemo.EXIT_LOST_UPDATES;
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
}
