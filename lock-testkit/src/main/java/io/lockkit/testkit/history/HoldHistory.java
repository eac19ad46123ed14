package io.lockkit.testkit.history;

import io.lockkit.LockException;
import io.lockkit.LockLostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Checks a recorded history of holds of one lock for mutual exclusion and fencing; provider-neutral
 * (it sees only what clients saw: tokens, times, validity, release outcomes). {@link LockHistory}
 * records such histories under faults; a test may also record its own and check them here.
 * Stateless and thread-safe; the lists it returns are the caller's.
 *
 * <p>Which holds count. A hold's valid interval runs from the moment its acquisition returned to
 * the earlier of its release call and its client's loss notification. A hold is <em>clean</em>
 * when its holder was never told of a loss (no listener call, no {@code LockLostException} on
 * release, lease still valid at the end of the critical section) and its release succeeded. Clean
 * holds must never overlap, and their tokens must increase in start order. A lost hold may overlap
 * another: a restart without persistence or a deleted key frees the lock on Redis while the holder
 * is still inside its critical section, which no lease can prevent (so does a deleted row of a
 * lock table, or any backend that loses its data). For those the guarantee is the
 * fencing token: a hold that starts after another one ended has the greater token, so a resource
 * that remembers the highest token it saw rejects the stale holder.
 */
public final class HoldHistory {

    /** How a hold's release ended. */
    public enum Outcome {
        /** The release succeeded. */
        RELEASED,
        /** The release said the lock was no longer held ({@link io.lockkit.LockLostException}). */
        LOST_AT_RELEASE,
        /** The release failed otherwise (backend unavailable): whether the hold was lost is unknown. */
        RELEASE_FAILED
    }

    /**
     * One hold as its holder saw it; times from {@link System#nanoTime()}.
     *
     * @param client which client (process) held it
     * @param token its fencing token
     * @param start when the acquisition returned
     * @param end when the critical section ended (before the release call)
     * @param validAtEnd whether the holder found the lease still valid at {@code end}
     * @param outcome how the release ended
     */
    public record Hold(int client, long token, long start, long end, boolean validAtEnd, Outcome outcome) {}

    /**
     * What the checker found: counts for a log line, and the violations ({@link #passes()} when
     * there are none). Lists name the holds concerned.
     */
    public record Report(
            int holds,
            long clean,
            long lostHeard,
            long lostAtRelease,
            long invalidAtEnd,
            int neverValid,
            long releaseFailed,
            int overlapsWithLost,
            int overlapsWithLostInverted,
            int staleHolders,
            long maxTokenGap,
            List<String> cleanOverlaps,
            List<String> cleanTokenInversions,
            List<String> fencingViolations,
            List<Long> duplicateTokens) {

        /** Whether no clean holds overlap, clean tokens increase, fencing holds and no token repeats. */
        public boolean passes() {
            return cleanOverlaps.isEmpty()
                    && cleanTokenInversions.isEmpty()
                    && fencingViolations.isEmpty()
                    && duplicateTokens.isEmpty();
        }
    }

    private record Checked(Hold hold, long validEnd, boolean clean) {
        long start() {
            return hold.start();
        }

        long token() {
            return hold.token();
        }
    }

    private HoldHistory() {}

    /**
     * Checks {@code holds}; {@code lossHeardAt} maps a token to the moment its holder's client was
     * told of the loss (the factory's loss listener).
     */
    public static Report check(List<Hold> holds, Map<Long, Long> lossHeardAt) {
        List<Checked> checked = new ArrayList<>();
        int neverValid = 0;
        for (Hold h : holds) {
            long validEnd = validEnd(h.token(), h.end(), lossHeardAt);
            if (validEnd - h.start() <= 0) {
                neverValid++; // lost before its holder even looked at it
                continue;
            }
            checked.add(new Checked(h, validEnd, clean(h.token(), h.validAtEnd(), h.outcome(), lossHeardAt)));
        }
        checked.sort(Comparator.comparingLong(Checked::start));
        List<String> cleanOverlaps = new ArrayList<>();
        List<String> cleanInversions = new ArrayList<>();
        checkCleanHolds(checked, cleanOverlaps, cleanInversions);
        List<String> fencingViolations = new ArrayList<>();
        int staleHolders = checkFencing(checked, fencingViolations);
        int[] lostOverlaps = overlapsWithLost(checked);
        return new Report(
                holds.size(),
                checked.stream().filter(Checked::clean).count(),
                holds.stream().filter(h -> lossHeardAt.containsKey(h.token())).count(),
                count(holds, h -> h.outcome() == Outcome.LOST_AT_RELEASE),
                count(holds, h -> !h.validAtEnd()),
                neverValid,
                count(holds, h -> h.outcome() == Outcome.RELEASE_FAILED),
                lostOverlaps[0],
                lostOverlaps[1],
                staleHolders,
                maxTokenGap(checked),
                cleanOverlaps,
                cleanInversions,
                fencingViolations,
                duplicateTokens(checked));
    }

    private static long count(List<Hold> holds, Predicate<Hold> which) {
        return holds.stream().filter(which).count();
    }

    /** Tokens are unique: each one marks a free-to-held transition. */
    private static List<Long> duplicateTokens(List<Checked> checked) {
        return repeated(checked.stream().map(Checked::token).toList());
    }

    /** The end of a hold's valid interval: its end, or when its client heard of its loss if that was earlier. */
    static long validEnd(long token, long end, Map<Long, Long> lossHeardAt) {
        Long heard = lossHeardAt.get(token);
        return heard == null ? end : Math.min(end, heard);
    }

    /** Whether a hold is clean: its client never heard of its loss, it was valid at its end, its release succeeded. */
    static boolean clean(long token, boolean validAtEnd, Outcome outcome, Map<Long, Long> lossHeardAt) {
        return !lossHeardAt.containsKey(token) && validAtEnd && outcome == Outcome.RELEASED;
    }

    /** The tokens that occur more than once, once per repetition. */
    static List<Long> repeated(List<Long> tokens) {
        Set<Long> seen = new HashSet<>();
        List<Long> duplicates = new ArrayList<>();
        for (Long t : tokens) {
            if (!seen.add(t)) {
                duplicates.add(t);
            }
        }
        return duplicates;
    }

    /** Runs a hold's {@code release} and says how it ended, as a recorded {@link Hold} does. */
    static Outcome release(Runnable release) {
        try {
            release.run();
            return Outcome.RELEASED;
        } catch (LockLostException e) {
            return Outcome.LOST_AT_RELEASE;
        } catch (LockException e) {
            return Outcome.RELEASE_FAILED;
        }
    }

    /** Clean holds never overlap, and their tokens increase in start order ({@code checked} is in start order). */
    private static void checkCleanHolds(List<Checked> checked, List<String> overlaps, List<String> inversions) {
        Checked previous = null;
        Checked reaching = null; // the clean hold that ends last so far
        for (Checked c : checked) {
            if (!c.clean()) {
                continue;
            }
            if (reaching != null && c.start() - reaching.validEnd() < 0) {
                overlaps.add(reaching.hold() + " / " + c.hold());
            }
            if (previous != null && c.token() <= previous.token()) {
                inversions.add(previous.hold() + " / " + c.hold());
            }
            previous = c;
            if (reaching == null || c.validEnd() - reaching.validEnd() > 0) {
                reaching = c;
            }
        }
    }

    /**
     * Tokens are ordered in time: a clean hold's token is above that of every hold, lost ones
     * included, that ended before it started; each clean hold that is not goes to {@code violations}.
     * (A lost hold may legitimately start after a greater token ended, when its holder was slow to
     * look at a grant it had already lost: such a stale holder is counted, and its resource rejects
     * it by the token.) Returns the number of stale holders.
     */
    private static int checkFencing(List<Checked> checked, List<String> violations) {
        Checked[] byEnd = checked.toArray(Checked[]::new);
        Arrays.sort(byEnd, Comparator.comparingLong(Checked::validEnd));
        long[] ends = new long[byEnd.length];
        long[] maxTokenUpTo = new long[byEnd.length];
        for (int i = 0; i < byEnd.length; i++) {
            ends[i] = byEnd[i].validEnd();
            maxTokenUpTo[i] = Math.max(i == 0 ? Long.MIN_VALUE : maxTokenUpTo[i - 1], byEnd[i].token());
        }
        int staleHolders = 0;
        for (Checked c : checked) {
            int endedBefore = firstNotBefore(ends, c.start());
            if (endedBefore > 0 && maxTokenUpTo[endedBefore - 1] >= c.token()) {
                if (c.clean()) {
                    violations.add(c.hold().toString());
                } else {
                    staleHolders++;
                }
            }
        }
        return staleHolders;
    }

    /**
     * Overlaps that involve a lost hold: allowed; counted ({@code [0]}), and how many of them give
     * the later hold the smaller token ({@code [1]}).
     */
    private static int[] overlapsWithLost(List<Checked> checked) {
        int overlaps = 0;
        int inverted = 0;
        Checked reachingAny = null;
        for (Checked c : checked) {
            if (reachingAny != null && c.start() - reachingAny.validEnd() < 0 && !(c.clean() && reachingAny.clean())) {
                overlaps++;
                if (c.token() < reachingAny.token()) {
                    inverted++;
                }
            }
            if (reachingAny == null || c.validEnd() - reachingAny.validEnd() > 0) {
                reachingAny = c;
            }
        }
        return new int[] {overlaps, inverted};
    }

    private static long maxTokenGap(List<Checked> checked) {
        long maxTokenGap = 0;
        for (int i = 1; i < checked.size(); i++) {
            maxTokenGap = Math.max(
                    maxTokenGap, checked.get(i).token() - checked.get(i - 1).token());
        }
        return maxTokenGap;
    }

    /**
     * Overlaps among holds whose holders found them valid at the end of their critical sections
     * (and were not told of a loss before it), whatever their release answered: each such hold was
     * believed valid from its start to its end. Where a lock is freed on Redis only by a lease that
     * ran out (stalls, lost connections; not restarts or deleted keys), none of them may overlap.
     */
    public static List<String> overlapsOfValidHolds(List<Hold> holds, Map<Long, Long> lossHeardAt) {
        List<Hold> valid = new ArrayList<>();
        for (Hold h : holds) {
            Long heard = lossHeardAt.get(h.token());
            if (h.validAtEnd() && (heard == null || heard - h.end() >= 0)) {
                valid.add(h);
            }
        }
        valid.sort(Comparator.comparingLong(Hold::start));
        List<String> overlaps = new ArrayList<>();
        Hold reaching = null;
        for (Hold h : valid) {
            if (reaching != null && h.start() - reaching.end() < 0) {
                overlaps.add(reaching + " / " + h + " (" + (reaching.end() - h.start()) / 1000 + " us)");
            }
            if (reaching == null || h.end() - reaching.end() > 0) {
                reaching = h;
            }
        }
        return overlaps;
    }

    /** The first index whose value is not before {@code key} (values ascending in nanoTime order). */
    static int firstNotBefore(long[] values, long key) {
        int lo = 0;
        int hi = values.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (values[mid] - key < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
