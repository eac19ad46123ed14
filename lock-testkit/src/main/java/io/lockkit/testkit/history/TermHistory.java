package io.lockkit.testkit.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Checks a recorded history of leadership terms of one name, for any provider: it sees only what
 * the leaders' processes saw ({@link System#nanoTime()} of one host, which every process on it
 * shares), the times processes did not run (paused, killed), and the faults injected.
 * {@link LeadershipHistory} records such histories from worker JVMs. Stateless and thread-safe.
 *
 * <p>A term's <em>working interval</em> runs from its election (the start of {@code onElected}) to
 * its last <em>work stamp</em>: a moment at which its leader checked {@code Term.isValid()} and
 * found it valid (the stamp is read before the check, so the term was valid then). The checker
 * proves:
 *
 * <ol>
 *   <li><b>no overlap</b>: no two terms' working intervals overlap (a deposed leader that keeps
 *       working overlaps its successor). Terms whose hold the backend lost ({@code NOT_HELD},
 *       {@code FORCE_RELEASED}) are the exception no lease can prevent: their overlaps are counted
 *       apart, and the later term must carry the larger token;
 *   <li><b>terms increase</b>: in election order, every term's token is larger than the last;
 *   <li><b>told first</b>: a leader whose process ran throughout finished {@code onRevoked}, and its
 *       term's {@code lost()} completed, before the next term was elected; a leader whose process
 *       was paused then is told once it runs again; only a killed one is never told;
 *   <li><b>prompt elections</b>: after each fault some term worked within lease + wake-up time of
 *       the fault's anchor (its start for a fault of the leader's process, whose own later stamps
 *       do not count; its end for a backend fault);
 *   <li><b>lost() first</b>: no term's {@code onRevoked} started before its {@code lost()} completed
 *       (both stamped in the leader's own process, so this holds through pauses too).
 * </ol>
 */
public final class TermHistory {

    /** Marks a time that was not recorded. */
    public static final long NONE = Long.MIN_VALUE;

    /**
     * One term as its leader's process recorded it.
     *
     * @param process which process (worker) led it
     * @param token its fencing token
     * @param electedAt when its {@code onElected} started
     * @param work its work stamps, ascending
     * @param revocation why it ended ({@code RevocationReason} name), or null if its leader never said
     * @param revokedStart when its {@code onRevoked} started, or {@link #NONE}
     * @param revokedEnd when its {@code onRevoked} ended, or {@link #NONE}
     * @param lostAt when its {@code lost()} completed, or {@link #NONE}
     */
    public record Term(
            int process,
            long token,
            long electedAt,
            List<Long> work,
            @org.jspecify.annotations.Nullable String revocation,
            long revokedStart,
            long revokedEnd,
            long lostAt) {

        /** The end of the working interval: the last work stamp, or the election when there is none. */
        public long workedUntil() {
            return work.isEmpty() ? electedAt : work.get(work.size() - 1);
        }

        /** Whether the backend lost the hold under it (a loss no lease can prevent). */
        boolean backendLost() {
            return "NOT_HELD".equals(revocation) || "FORCE_RELEASED".equals(revocation);
        }

        @Override
        public String toString() {
            return "term " + token + " of process " + process + " (" + work.size() + " work stamps"
                    + (revocation == null ? ", never revoked" : ", revoked " + revocation) + ")";
        }
    }

    /**
     * A time during which {@code process} did not run: paused from {@code from} to {@code to}, or
     * killed at {@code from} ({@code to} = {@link Long#MAX_VALUE}).
     */
    public record Outage(int process, long from, long to) {
        boolean killed() {
            return to == Long.MAX_VALUE;
        }

        boolean overlaps(long a, long b) {
            return from - b <= 0 && (killed() || a - to <= 0);
        }
    }

    /**
     * A fault: its name, when it started and ended, its anchor (when a working leader is due
     * within lease + wake-up), and the process whose own stamps do not count (-1: none).
     */
    public record Fault(String name, long start, long end, long anchor, int excludedProcess) {}

    /** What the checker found; {@link #passes()} when no list of violations has an entry. */
    public record Report(
            int terms,
            long workStamps,
            int lostHoldOverlaps,
            List<String> overlaps,
            List<String> tokenOrder,
            List<String> toldLate,
            List<String> revokedBeforeLost,
            List<String> slowElections,
            Map<String, List<Long>> electionMillis) {

        public boolean passes() {
            return overlaps.isEmpty()
                    && tokenOrder.isEmpty()
                    && toldLate.isEmpty()
                    && revokedBeforeLost.isEmpty()
                    && slowElections.isEmpty();
        }

        /** Every violation, one per line, for an assertion message. */
        public String violations() {
            List<String> all = new ArrayList<>();
            overlaps.forEach(v -> all.add("overlap: " + v));
            tokenOrder.forEach(v -> all.add("token order: " + v));
            toldLate.forEach(v -> all.add("told late: " + v));
            revokedBeforeLost.forEach(v -> all.add("onRevoked before lost(): " + v));
            slowElections.forEach(v -> all.add("slow election: " + v));
            return String.join("\n", all);
        }
    }

    private TermHistory() {}

    /**
     * Checks {@code terms} of one name, with the processes' {@code outages} and the {@code faults}
     * injected; elections are due within {@code lease} + {@code wakeUp} of each fault's anchor.
     */
    public static Report check(
            List<Term> terms, List<Outage> outages, List<Fault> faults, Duration lease, Duration wakeUp) {
        List<Term> byElection = new ArrayList<>(terms);
        byElection.sort(Comparator.comparingLong(Term::electedAt));
        List<String> overlaps = new ArrayList<>();
        int lostHoldOverlaps = overlaps(byElection, overlaps);
        Map<String, List<Long>> electionMillis = new LinkedHashMap<>();
        List<String> slow = slowElections(byElection, faults, lease.plus(wakeUp).toNanos(), electionMillis);
        long stamps = terms.stream().mapToLong(t -> t.work().size()).sum();
        return new Report(
                terms.size(),
                stamps,
                lostHoldOverlaps,
                overlaps,
                tokenOrder(byElection),
                toldLate(byElection, outages),
                revokedBeforeLost(byElection),
                slow,
                electionMillis);
    }

    /**
     * 1. Working intervals never overlap (a sweep, keeping the term that works the longest so far):
     * adds each overlap to {@code overlaps}, but counts those of a term whose hold the backend lost.
     */
    private static int overlaps(List<Term> byElection, List<String> overlaps) {
        int lostHoldOverlaps = 0;
        Term reaching = null;
        for (Term t : byElection) {
            if (reaching != null && t.electedAt() - reaching.workedUntil() <= 0) {
                String what = reaching + " worked until " + micros(reaching.workedUntil() - t.electedAt())
                        + " us after " + t + " was elected";
                if (reaching.backendLost() && t.token() > reaching.token()) {
                    lostHoldOverlaps++;
                } else {
                    overlaps.add(what);
                }
            }
            if (reaching == null || t.workedUntil() - reaching.workedUntil() > 0) {
                reaching = t;
            }
        }
        return lostHoldOverlaps;
    }

    /** 2. Terms increase in election order; no token twice. */
    private static List<String> tokenOrder(List<Term> byElection) {
        List<String> tokenOrder = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        Term previous = null;
        for (Term t : byElection) {
            if (!seen.add(t.token())) {
                tokenOrder.add("token " + t.token() + " elected twice");
            }
            if (previous != null && t.token() <= previous.token()) {
                tokenOrder.add(t + " elected after " + previous + " with a token not larger");
            }
            previous = t;
        }
        return tokenOrder;
    }

    /** 3. A deposed leader is told before the next term is elected, unless its process did not run. */
    private static List<String> toldLate(List<Term> byElection, List<Outage> outages) {
        List<String> toldLate = new ArrayList<>();
        for (int i = 0; i + 1 < byElection.size(); i++) {
            Term old = byElection.get(i);
            Term next = byElection.get(i + 1);
            List<Outage> stops = outagesOf(outages, old.process(), old.workedUntil(), next.electedAt());
            if (stops.stream().anyMatch(Outage::killed)) {
                continue; // a killed leader is never told; its successor waited for its lease
            }
            if (!stops.isEmpty()) {
                if (old.revokedEnd() == NONE && !killedLater(outages, old.process())) {
                    toldLate.add(old + ", paused while " + next + " was elected, was never told afterwards");
                }
                continue;
            }
            if (old.revokedEnd() == NONE || old.revokedEnd() - next.electedAt() >= 0) {
                toldLate.add(old + ": onRevoked "
                        + (old.revokedEnd() == NONE
                                ? "never ran"
                                : "ended " + micros(old.revokedEnd() - next.electedAt()) + " us after")
                        + " " + next + " was elected");
            } else if (old.lostAt() == NONE || old.lostAt() - next.electedAt() >= 0) {
                toldLate.add(old + ": lost() "
                        + (old.lostAt() == NONE
                                ? "never completed"
                                : "completed " + micros(old.lostAt() - next.electedAt()) + " us after")
                        + " " + next + " was elected");
            }
        }
        return toldLate;
    }

    /** 5. A term's onRevoked starts once its lost() has completed (both stamped by its own process). */
    private static List<String> revokedBeforeLost(List<Term> byElection) {
        List<String> revokedBeforeLost = new ArrayList<>();
        for (Term t : byElection) {
            if (t.revokedStart() != NONE && t.lostAt() != NONE && t.revokedStart() - t.lostAt() < 0) {
                revokedBeforeLost.add(t + ": onRevoked started " + micros(t.lostAt() - t.revokedStart())
                        + " us before its lost() completed");
            }
        }
        return revokedBeforeLost;
    }

    /**
     * 4. After each fault a term works within {@code boundNanos} (lease + wake-up) of the anchor;
     * puts each fault's delay in ms (-1: none worked) into {@code electionMillis}.
     */
    private static List<String> slowElections(
            List<Term> byElection, List<Fault> faults, long boundNanos, Map<String, List<Long>> electionMillis) {
        List<String> slow = new ArrayList<>();
        for (Fault f : faults) {
            long first = Long.MAX_VALUE;
            for (Term t : byElection) {
                if (t.process() == f.excludedProcess() && t.electedAt() - f.anchor() < 0) {
                    continue; // the faulted leader's own term: its stamps before the fault took effect
                }
                long w = firstAtOrAfter(t.work(), f.anchor());
                if (w != NONE && w - first < 0) {
                    first = w;
                }
            }
            long delay = first == Long.MAX_VALUE ? Long.MAX_VALUE : first - f.anchor();
            electionMillis
                    .computeIfAbsent(f.name(), k -> new ArrayList<>())
                    .add(delay == Long.MAX_VALUE ? -1 : TimeUnit.NANOSECONDS.toMillis(delay));
            if (delay > boundNanos) {
                slow.add(f.name() + ": "
                        + (delay == Long.MAX_VALUE
                                ? "no term worked afterwards"
                                : "the first term worked " + TimeUnit.NANOSECONDS.toMillis(delay) + " ms after")
                        + " the anchor (bound " + TimeUnit.NANOSECONDS.toMillis(boundNanos) + " ms)");
            }
        }
        return slow;
    }

    private static List<Outage> outagesOf(List<Outage> outages, int process, long from, long to) {
        List<Outage> found = new ArrayList<>();
        for (Outage o : outages) {
            if (o.process() == process && o.overlaps(from, to)) {
                found.add(o);
            }
        }
        return found;
    }

    private static boolean killedLater(List<Outage> outages, int process) {
        return outages.stream().anyMatch(o -> o.process() == process && o.killed());
    }

    /** The first value of ascending {@code values} at or after {@code t}, or {@link #NONE}. */
    private static long firstAtOrAfter(List<Long> values, long t) {
        int lo = 0;
        int hi = values.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (values.get(mid) - t < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < values.size() ? values.get(lo) : NONE;
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%,d", TimeUnit.NANOSECONDS.toMicros(nanos));
    }

    /** An ascending, unmodifiable copy of {@code stamps}, for a {@link Term}. */
    public static List<Long> sorted(List<Long> stamps) {
        return stamps.stream().sorted().toList();
    }
}
