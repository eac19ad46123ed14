package io.lockkit.jedis.internal;

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
    public static final List<String> KEYS = List.of("lockKey", "queueKey", "deadlinesKey");

    private InspectScript() {}

    /** The script's {@code ARGV}: none. */
    public record Args() {

        /** The names of the arguments: none. */
        public static List<String> names() {
            return Contracts.names(Args.class);
        }

        public List<String> encode() {
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
     * first (more than one for shared holders).
     */
    public record Held(
            String owner,
            int holdCount,
            Duration remainingLease,
            long fencingToken,
            int waiters,
            Map<String, Integer> holdCounts)
            implements Reply {}

    private static final Reply FREE = new Free();

    /**
     * Reads the script's reply: {@code {}}, or {@code {ms left on the lease, owner, hold count,
     * token, waiters}} followed by {@code owner, hold count} of each further holder.
     */
    public static Reply decode(Object reply) {
        List<?> fields = (List<?>) reply;
        if (fields.size() < 5 || String.valueOf(fields.get(1)).startsWith("~")) {
            return FREE; // an owner id that looks like one of the hash's own fields never held it
        }
        String owner = String.valueOf(fields.get(1));
        int count = Integer.parseInt(String.valueOf(fields.get(2)));
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts.put(owner, count);
        for (int i = 5; i + 1 < fields.size(); i += 2) {
            counts.put(String.valueOf(fields.get(i)), Integer.parseInt(String.valueOf(fields.get(i + 1))));
        }
        return new Held(
                owner,
                count,
                Duration.ofMillis(Math.max(0, (Long) fields.get(0))),
                AcquireScript.token(fields.get(3)),
                Math.toIntExact((Long) fields.get(4)),
                Collections.unmodifiableMap(counts));
    }
}
