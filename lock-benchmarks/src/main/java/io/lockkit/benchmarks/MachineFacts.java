package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchmarkMain.Settings;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the report says about the machine and how the harness ran on it: CPU pinning with
 * {@code taskset}, the CPU model, and the commit measured. Failures give "unknown" or an unpinned
 * run, never an exception.
 */
final class MachineFacts {

    private MachineFacts() {}

    /** Pins Redis to CPU 0 and this JVM to CPU 1 when it can; returns how things run, for the report. */
    static String pin(Settings s, RedisServer server, int cores) {
        if (!s.pin()) {
            return "not pinned (--no-pin)";
        }
        if (cores < 2) {
            return "not pinned (one CPU)";
        }
        if (server.pid().isEmpty()) {
            return "not pinned (Redis is not a local process)";
        }
        try {
            taskset(server.pid().getAsLong(), 0);
            taskset(ProcessHandle.current().pid(), 1);
            return "pinned: Redis on CPU 0, the benchmark JVM and its JMH forks on CPU 1 (taskset)";
        } catch (IOException | RuntimeException e) {
            return "not pinned (taskset failed: " + e.getMessage() + ")";
        }
    }

    static void taskset(long pid, int cpu) throws IOException {
        Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", Integer.toString(cpu), Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        try (InputStream in = p.getInputStream()) {
            String output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("taskset -a -p -c " + cpu + " " + pid + " failed: " + output.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    static String commit() {
        try {
            String sha = git("rev-parse", "--short", "HEAD");
            if (sha == null) {
                return "unknown";
            }
            // The results directory itself is rewritten by the run: it does not count.
            String changes = git("status", "--porcelain", "--", ".", ":(exclude)lock-benchmarks/results");
            return changes == null
                    ? sha
                    : changes.isEmpty()
                            ? sha + ", no uncommitted changes"
                            : sha + " plus uncommitted changes at the time of the run";
        } catch (IOException | RuntimeException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** A git command's trimmed output, or null when it failed. */
    private static String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("git");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.waitFor() == 0 ? out : null;
    }
}
