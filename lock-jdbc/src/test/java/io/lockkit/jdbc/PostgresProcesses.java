package io.lockkit.jdbc;

import io.lockkit.testkit.jdbc.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Stalls a PostgreSQL server a test started: SIGSTOP of the postmaster and its backends for a
 * while, then SIGCONT; {@link #resumeAll()} resumes whatever is still stopped (for clean-up after a
 * failed test). Only ever signals the processes of that server. Thread-safe.
 */
final class PostgresProcesses {

    private final PostgresServer pg;
    private final List<Long> stopped = new ArrayList<>();

    PostgresProcesses(PostgresServer pg) {
        this.pg = pg;
    }

    /** Stops the whole server for {@code length}, then resumes it. */
    void stall(Duration length) throws InterruptedException {
        long postmaster = pg.pid().orElseThrow();
        List<Long> pids = new ArrayList<>();
        pids.add(postmaster);
        pids.addAll(children(postmaster));
        synchronized (stopped) {
            stopped.addAll(pids);
        }
        signal("STOP", pids);
        try {
            Thread.sleep(length.toMillis());
        } finally {
            resumeAll();
        }
    }

    /** Resumes every process this stalled and has not resumed yet. */
    void resumeAll() {
        List<Long> pids;
        synchronized (stopped) {
            pids = List.copyOf(stopped);
            stopped.clear();
        }
        if (!pids.isEmpty()) {
            signal("CONT", pids);
        }
    }

    private static List<Long> children(long parent) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            List<Long> children = new ArrayList<>();
            procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .forEach(p -> {
                        try {
                            String stat = Files.readString(p.resolve("stat"));
                            String[] after =
                                    stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                            if (Long.parseLong(after[1]) == parent) {
                                children.add(Long.parseLong(p.getFileName().toString()));
                            }
                        } catch (IOException | RuntimeException e) {
                            // gone meanwhile
                        }
                    });
            return children;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void signal(String signal, List<Long> pids) {
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.forEach(p -> command.add(Long.toString(p)));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            // A backend that exited meanwhile makes kill fail for that pid only; the others are signalled.
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " did not return");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + pids, e);
        }
    }
}
