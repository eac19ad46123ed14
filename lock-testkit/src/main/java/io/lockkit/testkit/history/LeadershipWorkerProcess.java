package io.lockkit.testkit.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What one worker JVM of a {@link LeadershipHistory} run reported on its output (its terms, their
 * work and how they ended), fed line by line by its {@link WorkerJvm}'s reader. Thread-safe.
 */
final class LeadershipWorkerProcess implements Consumer<String[]> {
    /** Its terms by token, in the order elected. */
    private final Map<Long, TermRecord> terms = new LinkedHashMap<>();

    private volatile @Nullable WorkerJvm jvm;
    private volatile long lastWork = Long.MIN_VALUE;
    private volatile long leadingToken = -1;

    /** The JVM it parses the output of (set once started). */
    WorkerJvm jvm() {
        return Objects.requireNonNull(jvm, "not started");
    }

    void started(WorkerJvm jvm) {
        this.jvm = jvm;
    }

    long lastWork() {
        return lastWork;
    }

    boolean leading() {
        return leadingToken >= 0;
    }

    /** Records one protocol line of its worker. */
    @Override
    public synchronized void accept(String[] f) {
        switch (f[0]) {
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
                // READY, BYE and anything newer: nothing to record
            }
        }
    }

    synchronized List<TermHistory.Term> terms() {
        List<TermHistory.Term> list = new ArrayList<>();
        for (TermRecord r : terms.values()) {
            list.add(new TermHistory.Term(
                    jvm().index,
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
