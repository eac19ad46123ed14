package io.lockkit.testkit.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One worker JVM of a {@link LeadershipHistory} run and what it reported on its output (its terms,
 * their work and how they ended), read by a thread of its own. Thread-safe.
 */
final class LeadershipWorkerProcess {
    final int index;
    final Process process;
    final Thread reader;
    final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
    /** Its terms by token, in the order elected. */
    private final Map<Long, TermRecord> terms = new LinkedHashMap<>();

    private final Deque<String> tail = new ArrayDeque<>();
    private volatile long lastWork = Long.MIN_VALUE;
    private volatile long leadingToken = -1;

    LeadershipWorkerProcess(int index, Process process) {
        this.index = index;
        this.process = process;
        this.reader = new Thread(this::read, "leader-worker-" + index + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    long lastWork() {
        return lastWork;
    }

    boolean leading() {
        return leadingToken >= 0;
    }

    private void read() {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith(LeaderWorker.PREFIX)) {
                    parse(line.substring(LeaderWorker.PREFIX.length()).split(" ", -1));
                } else {
                    synchronized (tail) {
                        tail.addLast(line);
                        if (tail.size() > 30) {
                            tail.removeFirst();
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private synchronized void parse(String[] f) {
        switch (f[0]) {
            case "READY" -> ready.countDown();
            case "ELECTED" -> {
                long token = Long.parseLong(f[1]);
                terms.put(token, new TermRecord(token, Long.parseLong(f[2])));
                leadingToken = token;
            }
            case "WORK" -> {
                long t = Long.parseLong(f[2]);
                TermRecord r = terms.get(Long.parseLong(f[1]));
                if (r != null) {
                    r.work.add(t);
                }
                lastWork = t;
            }
            case "REVOKED" -> {
                TermRecord r = terms.get(Long.parseLong(f[1]));
                if (r != null) {
                    r.revocation = f[2];
                    r.revokedStart = Long.parseLong(f[3]);
                    r.revokedEnd = Long.parseLong(f[4]);
                }
                if (leadingToken == Long.parseLong(f[1])) {
                    leadingToken = -1;
                }
            }
            case "LOST" -> {
                TermRecord r = terms.get(Long.parseLong(f[1]));
                if (r != null) {
                    r.lostAt = Long.parseLong(f[3]);
                }
                if (leadingToken == Long.parseLong(f[1])) {
                    leadingToken = -1;
                }
            }
            default -> {
                // BYE and anything newer: nothing to record
            }
        }
    }

    synchronized List<TermHistory.Term> terms() {
        List<TermHistory.Term> list = new ArrayList<>();
        for (TermRecord r : terms.values()) {
            list.add(new TermHistory.Term(
                    index,
                    r.token,
                    r.electedAt,
                    TermHistory.sorted(r.work),
                    r.revocation,
                    r.revokedStart,
                    r.revokedEnd,
                    r.lostAt));
        }
        return list;
    }

    /** The last lines of its output that were not reports. */
    List<String> tail() {
        synchronized (tail) {
            return List.copyOf(tail);
        }
    }

    @Override
    public String toString() {
        synchronized (tail) {
            return "worker " + index + " " + tail;
        }
    }

    /** A term as a worker reported it, while the run goes on. */
    private static final class TermRecord {
        final long token;
        final long electedAt;
        final List<Long> work = new ArrayList<>();

        @Nullable
        String revocation;

        long revokedStart = TermHistory.NONE;
        long revokedEnd = TermHistory.NONE;
        long lostAt = TermHistory.NONE;

        TermRecord(long token, long electedAt) {
            this.token = token;
            this.electedAt = electedAt;
        }
    }
}
