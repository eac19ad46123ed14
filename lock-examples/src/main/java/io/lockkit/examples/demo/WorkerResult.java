package io.lockkit.examples.demo;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;

/**
 * What one worker JVM measured, as it hands it to the coordinator through a text file: a few
 * {@code name value} lines, then one {@code wait <µs>} line per acquisition and one
 * {@code write <token> <value>} line per counter write made under the lock. Immutable.
 */
final class WorkerResult {

    private static final String HEADER = "# lockkit counter demo worker result";

    final int worker;
    final long increments;
    final long failures;
    final long startEpochMicros;
    final long endEpochMicros;
    /** Whether the tokens this worker saw, in the order its threads held the lock, strictly increased. */
    final boolean tokensIncreasing;
    /** Time from asking for the lock to holding it, per acquisition, in µs. */
    final long[] waitsMicros;
    /** The fencing token of each write, in the worker's lock order; empty without the lock. */
    final long[] tokens;
    /** The counter value written under {@code tokens[i]}. */
    final long[] values;

    WorkerResult(
            int worker,
            long increments,
            long failures,
            long startEpochMicros,
            long endEpochMicros,
            boolean tokensIncreasing,
            long[] waitsMicros,
            long[] tokens,
            long[] values) {
        if (tokens.length != values.length) {
            throw new IllegalArgumentException(
                    "tokens and values must pair up: " + tokens.length + " != " + values.length);
        }
        this.worker = worker;
        this.increments = increments;
        this.failures = failures;
        this.startEpochMicros = startEpochMicros;
        this.endEpochMicros = endEpochMicros;
        this.tokensIncreasing = tokensIncreasing;
        this.waitsMicros = waitsMicros.clone();
        this.tokens = tokens.clone();
        this.values = values.clone();
    }

    /** Writes the file next to {@code file} and moves it into place, so a reader never sees half of it. */
    void write(Path file) throws IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (BufferedWriter w = Files.newBufferedWriter(partial, StandardCharsets.UTF_8)) {
            w.write(HEADER + "\n");
            w.write("worker " + worker + "\n");
            w.write("increments " + increments + "\n");
            w.write("failures " + failures + "\n");
            w.write("start " + startEpochMicros + "\n");
            w.write("end " + endEpochMicros + "\n");
            w.write("tokens-increasing " + tokensIncreasing + "\n");
            for (long wait : waitsMicros) {
                w.write("wait " + wait + "\n");
            }
            for (int i = 0; i < tokens.length; i++) {
                w.write("write " + tokens[i] + " " + values[i] + "\n");
            }
        }
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Reads a file {@link #write(Path)} wrote.
     *
     * @throws IOException when it cannot be read or is not such a file
     */
    static WorkerResult read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !HEADER.equals(lines.get(0))) {
            throw new IOException(file + " is not a worker result");
        }
        int worker = -1;
        long increments = 0;
        long failures = 0;
        long start = 0;
        long end = 0;
        boolean increasing = false;
        long[] waits = new long[lines.size()];
        long[] tokens = new long[lines.size()];
        long[] values = new long[lines.size()];
        int w = 0;
        int t = 0;
        try {
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.split(" ", -1);
                switch (f[0]) {
                    case "worker":
                        worker = Integer.parseInt(f[1]);
                        break;
                    case "increments":
                        increments = Long.parseLong(f[1]);
                        break;
                    case "failures":
                        failures = Long.parseLong(f[1]);
                        break;
                    case "start":
                        start = Long.parseLong(f[1]);
                        break;
                    case "end":
                        end = Long.parseLong(f[1]);
                        break;
                    case "tokens-increasing":
                        increasing = Boolean.parseBoolean(f[1]);
                        break;
                    case "wait":
                        waits[w++] = Long.parseLong(f[1]);
                        break;
                    case "write":
                        tokens[t] = Long.parseLong(f[1]);
                        values[t++] = Long.parseLong(f[2]);
                        break;
                    default:
                        throw new IOException(file + ": unexpected line: " + line);
                }
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new IOException(file + " is damaged: " + e.getMessage(), e);
        }
        return new WorkerResult(
                worker,
                increments,
                failures,
                start,
                end,
                increasing,
                Arrays.copyOf(waits, w),
                Arrays.copyOf(tokens, t),
                Arrays.copyOf(values, t));
    }
}
