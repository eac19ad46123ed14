package io.lockkit.testkit.history;

import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a recorded history of holds of one name that carry a mode and a weight (read/write lock,
 * semaphore, fair lock), provider-neutral: it sees only what clients saw. Stateless and
 * thread-safe; the lists it returns are the caller's.
 *
 * <p>Which holds count is {@link HoldHistory}'s rule: a hold's valid interval runs from the moment
 * its acquisition returned to the earlier of its release call and its client's loss notification;
 * it is <em>clean</em> when its holder was never told of a loss and its release succeeded. Among
 * clean holds: an exclusive (write) hold overlaps no other hold, read or write; the weights of the
 * holds valid at any instant add up to the capacity at most (for a bounded name). Among all holds:
 * a clean hold's token is above that of every exclusive hold, lost ones included, that ended
 * before it began (a lost hold below it is a stale holder, counted: its resource rejects it by the
 * token); tokens never repeat. A lost hold may overlap others: a backend that loses its data frees
 * the name under its holder, which no lease prevents; fencing is the guarantee then.
 */
public final class ClaimHistory {

    /** The capacity of a name whose weights are not bounded (read/write lock, fair lock). */
    public static final int UNBOUNDED = 0;

    /**
     * One hold as its holder saw it; times from {@link System#nanoTime()} (one clock for every
     * process of a host).
     *
     * @param client which client (process) held it
     * @param token its fencing token
     * @param exclusive whether it held the whole name (a write hold, a lock) rather than a share
     * @param weight the units it took of the capacity (1 for an exclusive or a read hold)
     * @param start when the acquisition returned
     * @param end when the critical section ended (before the release call)
     * @param validAtEnd whether the holder found the hold still valid at {@code end}
     * @param outcome how the release ended
     */
    public record Hold(
            int client,
            long token,
            boolean exclusive,
            int weight,
            long start,
            long end,
            boolean validAtEnd,
            Outcome outcome) {}

    /**
     * What the checker found; {@link #passes()} when no violation. Lists name the holds concerned.
     *
     * @param maxWeight the largest sum of weights of clean holds seen at one instant
     */
    public record Report(
            int holds,
            long clean,
            long exclusive,
            long lostHeard,
            long lostAtRelease,
            long invalidAtEnd,
            int neverValid,
            long releaseFailed,
            int overlapsWithLost,
            int staleHolders,
            int maxWeight,
            List<String> exclusionViolations,
            List<String> capacityViolations,
            List<String> fencingViolations,
            List<Long> duplicateTokens) {

        /** Whether no exclusive hold overlapped another, no capacity was exceeded, fencing held, no token repeated. */
        public boolean passes() {
            return exclusionViolations.isEmpty()
                    && capacityViolations.isEmpty()
                    && fencingViolations.isEmpty()
                    && duplicateTokens.isEmpty();
        }

        /** Every violation, one per line. */
        public List<String> violations() {
            List<String> all = new ArrayList<>();
            exclusionViolations.forEach(v -> all.add("exclusive hold overlapping another: " + v));
            capacityViolations.forEach(v -> all.add("capacity exceeded: " + v));
            fencingViolations.forEach(v -> all.add("token not above an earlier-ended write hold's: " + v));
            duplicateTokens.forEach(t -> all.add("duplicate token " + t));
            return all;
        }
    }

    private record Checked(Hold hold, long validEnd, boolean clean) {}

    private ClaimHistory() {}

    /**
     * Checks {@code holds} of a name of {@code capacity} ({@link #UNBOUNDED} for locks and
     * read/write locks); {@code lossHeardAt} maps a token to when its client heard of its loss.
     *
     * @throws IllegalArgumentException when {@code capacity} is negative
     */
    public static Report check(List<Hold> holds, Map<Long, Long> lossHeardAt, int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be 0 (unbounded) or positive, was " + capacity);
        }
        List<Checked> checked = new ArrayList<>();
        int neverValid = 0;
        for (Hold h : holds) {
            long validEnd = HoldHistory.validEnd(h.token(), h.end(), lossHeardAt);
            if (validEnd - h.start() <= 0) {
                neverValid++; // lost before its holder even looked at it
                continue;
            }
            checked.add(
                    new Checked(h, validEnd, HoldHistory.clean(h.token(), h.validAtEnd(), h.outcome(), lossHeardAt)));
        }
        checked.sort(Comparator.comparingLong((Checked c) -> c.hold().start()));
        List<String> exclusion = new ArrayList<>();
        List<String> overCapacity = new ArrayList<>();
        int maxWeight = sweepClean(checked, capacity, exclusion, overCapacity);
        List<String> fencing = new ArrayList<>();
        int stale = checkFencing(checked, fencing);
        return new Report(
                holds.size(),
                checked.stream().filter(Checked::clean).count(),
                holds.stream().filter(Hold::exclusive).count(),
                holds.stream().filter(h -> lossHeardAt.containsKey(h.token())).count(),
                holds.stream()
                        .filter(h -> h.outcome() == Outcome.LOST_AT_RELEASE)
                        .count(),
                holds.stream().filter(h -> !h.validAtEnd()).count(),
                neverValid,
                holds.stream()
                        .filter(h -> h.outcome() == Outcome.RELEASE_FAILED)
                        .count(),
                overlapsWithLost(checked),
                stale,
                maxWeight,
                exclusion,
                overCapacity,
                fencing,
                HoldHistory.repeated(checked.stream().map(c -> c.hold().token()).toList()));
    }

    /**
     * Walks the clean holds in start order with the set of those still valid: a hold that starts
     * beside an exclusive one, or exclusive beside any, goes to {@code exclusion}; one that brings
     * the weights above a bounded capacity to {@code overCapacity}. Returns the largest sum seen.
     */
    private static int sweepClean(List<Checked> checked, int capacity, List<String> exclusion, List<String> over) {
        Set<Checked> valid = new LinkedHashSet<>();
        int weight = 0;
        int maxWeight = 0;
        for (Checked c : checked) {
            if (!c.clean()) {
                continue;
            }
            long now = c.hold().start();
            for (var it = valid.iterator(); it.hasNext(); ) {
                Checked v = it.next();
                if (v.validEnd() - now <= 0) { // ended at or before this start
                    weight -= v.hold().weight();
                    it.remove();
                }
            }
            for (Checked v : valid) {
                if (v.hold().exclusive() || c.hold().exclusive()) {
                    exclusion.add(v.hold() + " / " + c.hold());
                }
            }
            weight += c.hold().weight();
            maxWeight = Math.max(maxWeight, weight);
            if (capacity != UNBOUNDED && weight > capacity) {
                over.add(weight + " > " + capacity + " at the start of " + c.hold() + " beside "
                        + valid.stream().map(Checked::hold).toList());
            }
            valid.add(c);
        }
        return maxWeight;
    }

    /**
     * A hold's token is above that of every exclusive hold, lost ones included, that ended before
     * it began: each clean hold that is not goes to {@code violations}; lost ones are stale holders
     * (counted and returned), whose resources reject them by the token.
     */
    private static int checkFencing(List<Checked> checked, List<String> violations) {
        Checked[] writes = checked.stream().filter(c -> c.hold().exclusive()).toArray(Checked[]::new);
        Arrays.sort(writes, Comparator.comparingLong(Checked::validEnd));
        long[] ends = new long[writes.length];
        long[] maxTokenUpTo = new long[writes.length];
        for (int i = 0; i < writes.length; i++) {
            ends[i] = writes[i].validEnd();
            maxTokenUpTo[i] = Math.max(
                    i == 0 ? Long.MIN_VALUE : maxTokenUpTo[i - 1],
                    writes[i].hold().token());
        }
        int stale = 0;
        for (Checked c : checked) {
            int endedBefore = HoldHistory.firstNotBefore(ends, c.hold().start());
            if (endedBefore > 0 && maxTokenUpTo[endedBefore - 1] >= c.hold().token()) {
                if (c.clean()) {
                    violations.add(c.hold().toString());
                } else {
                    stale++;
                }
            }
        }
        return stale;
    }

    /** Overlaps that involve a lost hold and an exclusive one: allowed (fencing covers them), counted. */
    private static int overlapsWithLost(List<Checked> checked) {
        int overlaps = 0;
        List<Checked> open = new ArrayList<>();
        for (Checked c : checked) {
            open.removeIf(o -> o.validEnd() - c.hold().start() <= 0);
            for (Checked o : open) {
                if (!(o.clean() && c.clean())
                        && (o.hold().exclusive() || c.hold().exclusive())) {
                    overlaps++;
                }
            }
            open.add(c);
        }
        return overlaps;
    }
}
