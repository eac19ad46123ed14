package io.lockkit.jedis.internal;

import io.lockkit.spi.Claim;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Java side of {@code inspect.lua}: its keys by name (it takes no arguments) and its reply
 * decoded. {@code ScriptContractTest} fails the build when the two sides disagree. Values are
 * immutable and thread-safe.
 */
public final class InspectScript {

    /** The script's {@code KEYS}, in order. */
    public static final List<String> KEYS = List.of("lockKey", "queueKey", "deadlinesKey", "capacityKey");

    private InspectScript() {}

    /** The script's {@code ARGV}: none. */
    public record Args() {

        /** The names of the arguments: none. */
        public static List<String> names() {
            return Contracts.names(Args.class);
        }

        public List<Arg> encode() {
            return List.of();
        }
    }

    /** What the script answered. */
    public sealed interface Reply permits Free, Held {}

    /** Nobody holds the lock. */
    public record Free() implements Reply {}

    /**
     * {@code owner} holds it {@code holdCount} times (0: handed over, not claimed yet), for
     * {@code remainingLease} more, with {@code fencingToken}; {@code waiters} live queue entries;
     * {@code holdCounts}: every holder's count in the order the script listed them, {@code owner}
     * first (more than one for shared holders); {@code claims}: the shared holders' claims (weight
     * and the stored capacity, {@link Claim#UNBOUNDED} when none is stored); {@code capacity}: the
     * stored capacity, -1 when none is.
     */
    public record Held(
            String owner,
            int holdCount,
            Duration remainingLease,
            long fencingToken,
            int waiters,
            Map<String, Integer> holdCounts,
            Map<String, Claim> claims,
            int capacity)
            implements Reply {}

    private static final Reply FREE = new Free();

    /**
     * Reads the script's reply: {@code {}}, or {@code {ms left on the lease, owner, hold count,
     * token, waiters}}, with shared holders followed by the stored capacity, the first holder's
     * weight (0: exclusive) and {@code owner, hold count, weight} of each further holder.
     */
    public static Reply decode(Object reply) {
        List<?> fields = (List<?>) reply;
        if (fields.size() < 5 || String.valueOf(fields.get(1)).startsWith("~")) {
            return FREE; // an owner id that looks like one of the hash's own fields never held it
        }
        String owner = String.valueOf(fields.get(1));
        int count = Integer.parseInt(String.valueOf(fields.get(2)));
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, Claim> claims = new LinkedHashMap<>();
        counts.put(owner, count);
        int capacity = fields.size() > 6 ? Math.toIntExact((Long) fields.get(5)) : -1;
        if (fields.size() > 6) {
            putClaim(claims, owner, (Long) fields.get(6), capacity);
        }
        for (int i = 7; i + 2 < fields.size(); i += 3) {
            String other = String.valueOf(fields.get(i));
            counts.put(other, Integer.parseInt(String.valueOf(fields.get(i + 1))));
            putClaim(claims, other, (Long) fields.get(i + 2), capacity);
        }
        return new Held(
                owner,
                count,
                Duration.ofMillis(Math.max(0, (Long) fields.get(0))),
                AcquireScript.token(fields.get(3)),
                Math.toIntExact((Long) fields.get(4)),
                Collections.unmodifiableMap(counts),
                Collections.unmodifiableMap(claims),
                capacity);
    }

    /** A shared holder's claim (weight 0: the exclusive holder, which has none here). */
    private static void putClaim(Map<String, Claim> claims, String owner, long weight, int capacity) {
        if (weight > 0) {
            int w = Math.toIntExact(weight);
            claims.put(owner, Claim.shared(w, capacity < 1 ? Claim.UNBOUNDED : Math.max(w, capacity)));
        }
    }
}
