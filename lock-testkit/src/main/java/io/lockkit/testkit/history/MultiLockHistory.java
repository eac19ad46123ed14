package io.lockkit.testkit.history;

import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a recorded history of multi-locks ({@code DistributedLockFactory.acquireAll}) over a pool
 * of names, provider-neutral: it sees only what clients saw. Stateless and thread-safe; the lists
 * it returns are the caller's.
 *
 * <p>Each member of a granted multi-lock is a hold of its name, valid from the moment
 * {@code acquireAll} returned to the earlier of the release call and its client's loss notification
 * for that member (as {@link HoldHistory} counts holds). Per name, the members are checked as the
 * holds of an exclusive lock ({@link ClaimHistory}, every hold exclusive): no two clean holds
 * overlap, a clean hold's token is above that of every hold that ended before it began (so tokens
 * follow the grant order), no token repeats. Per grant, all or nothing: every name asked for has
 * exactly one member, and no member was not asked for.
 */
public final class MultiLockHistory {

    /**
     * One member of a granted multi-lock as its holder saw it.
     *
     * @param name the member's lock name
     * @param token its fencing token
     * @param validAtEnd whether the holder found it still valid at the end of the critical section
     * @param outcome how its release ended
     */
    public record Member(String name, long token, boolean validAtEnd, Outcome outcome) {}

    /**
     * One multi-lock that {@code acquireAll} granted; times from {@link System#nanoTime()} (one
     * clock for every process of a host).
     *
     * @param client which client (process) held it
     * @param asked the names asked for, in the order they were passed
     * @param start when {@code acquireAll} returned
     * @param end when the critical section ended (before the release call)
     * @param members the members the handle held
     */
    public record Grant(int client, List<String> asked, long start, long end, List<Member> members) {
        public Grant {
            asked = List.copyOf(asked);
            members = List.copyOf(members);
        }
    }

    /**
     * What the checker found; {@link #passes()} when no violation.
     *
     * @param grants the multi-locks granted
     * @param members the members' holds of every name together: counts summed, each violation
     *     prefixed with its name
     * @param byName each name's own report
     * @param incompleteGrants the grants with a member missing (or one not asked for)
     */
    public record Report(
            int grants,
            ClaimHistory.Report members,
            Map<String, ClaimHistory.Report> byName,
            List<String> incompleteGrants) {

        /** Whether every name's holds passed and every grant held all it asked for. */
        public boolean passes() {
            return members.passes() && incompleteGrants.isEmpty();
        }

        /** Every violation, one per line. */
        public List<String> violations() {
            List<String> all = new ArrayList<>(members.violations());
            incompleteGrants.forEach(v -> all.add("multi-lock granted without all it asked for: " + v));
            return all;
        }
    }

    private MultiLockHistory() {}

    /**
     * Checks {@code grants}; {@code lossHeardAt} maps a name to its tokens' loss notifications
     * (token to when its client's loss listener heard of it).
     */
    public static Report check(List<Grant> grants, Map<String, Map<Long, Long>> lossHeardAt) {
        Map<String, List<ClaimHistory.Hold>> holds = new TreeMap<>();
        List<String> incomplete = new ArrayList<>();
        for (Grant g : grants) {
            String missing = missingOrExtra(g);
            if (!missing.isEmpty()) {
                incomplete.add(g + ": " + missing);
            }
            for (Member m : g.members()) {
                holds.computeIfAbsent(m.name(), n -> new ArrayList<>())
                        .add(new ClaimHistory.Hold(
                                g.client(), m.token(), true, 1, g.start(), g.end(), m.validAtEnd(), m.outcome()));
            }
        }
        Map<String, ClaimHistory.Report> byName = new TreeMap<>();
        holds.forEach((name, h) -> byName.put(
                name, ClaimHistory.check(h, lossHeardAt.getOrDefault(name, Map.of()), ClaimHistory.UNBOUNDED)));
        return new Report(grants.size(), merged(byName), Map.copyOf(byName), incomplete);
    }

    /** What a grant lacks or has too much of, or empty when its members are exactly the names asked for. */
    private static String missingOrExtra(Grant g) {
        Set<String> asked = new HashSet<>(g.asked());
        Set<String> held = new HashSet<>();
        List<String> extra = new ArrayList<>();
        for (Member m : g.members()) {
            if (!asked.contains(m.name()) || !held.add(m.name())) {
                extra.add(m.name());
            }
        }
        List<String> missing = new ArrayList<>();
        for (String name : g.asked()) {
            if (!held.contains(name)) {
                missing.add(name);
            }
        }
        return (missing.isEmpty() ? "" : "missing " + missing)
                + (missing.isEmpty() || extra.isEmpty() ? "" : ", ")
                + (extra.isEmpty() ? "" : "not asked for or twice " + extra);
    }

    /** The names' reports as one: counts summed, the largest weight, violations prefixed with their name. */
    private static ClaimHistory.Report merged(Map<String, ClaimHistory.Report> byName) {
        int holds = 0;
        long clean = 0;
        long exclusive = 0;
        long lostHeard = 0;
        long lostAtRelease = 0;
        long invalidAtEnd = 0;
        int neverValid = 0;
        long releaseFailed = 0;
        int overlapsWithLost = 0;
        int stale = 0;
        int maxWeight = 0;
        List<String> exclusion = new ArrayList<>();
        List<String> capacity = new ArrayList<>();
        List<String> fencing = new ArrayList<>();
        List<Long> duplicates = new ArrayList<>();
        for (Map.Entry<String, ClaimHistory.Report> e : byName.entrySet()) {
            ClaimHistory.Report r = e.getValue();
            holds += r.holds();
            clean += r.clean();
            exclusive += r.exclusive();
            lostHeard += r.lostHeard();
            lostAtRelease += r.lostAtRelease();
            invalidAtEnd += r.invalidAtEnd();
            neverValid += r.neverValid();
            releaseFailed += r.releaseFailed();
            overlapsWithLost += r.overlapsWithLost();
            stale += r.staleHolders();
            maxWeight = Math.max(maxWeight, r.maxWeight());
            String prefix = e.getKey() + ": ";
            r.exclusionViolations().forEach(v -> exclusion.add(prefix + v));
            r.capacityViolations().forEach(v -> capacity.add(prefix + v));
            r.fencingViolations().forEach(v -> fencing.add(prefix + v));
            duplicates.addAll(r.duplicateTokens());
        }
        return new ClaimHistory.Report(
                holds,
                clean,
                exclusive,
                lostHeard,
                lostAtRelease,
                invalidAtEnd,
                neverValid,
                releaseFailed,
                overlapsWithLost,
                stale,
                maxWeight,
                exclusion,
                capacity,
                fencing,
                duplicates);
    }
}
