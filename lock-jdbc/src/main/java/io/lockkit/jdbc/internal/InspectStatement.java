package io.lockkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The {@code inspect} statement of every dialect (and the row shape of {@link ListStatement}): the
 * holder of a lock whose lease is valid, its hold count, the lease left, the token and the live
 * waiters. {@code SqlContractTest} holds the dialects' SQL to these names. Values are immutable and
 * thread-safe.
 */
public final class InspectStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "inspect";

    /** The reply's columns, in order. */
    public static final List<String> COLUMNS =
            List.of("owner", "hold_count", "remaining_us", "token", "waiters", "weight", "capacity");

    /** The first {@link #COLUMNS}: one holder's, which a listing's rows share. */
    public static final List<String> HOLDER_COLUMNS = COLUMNS.subList(0, 5);

    private static final Reply FREE = new Free();

    private InspectStatement() {}

    /**
     * The statement's parameters.
     *
     * @param key the lock's row key
     */
    public record Args(String key) {

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /** What the statement answered. */
    public sealed interface Reply permits Free, Held {}

    /** No valid lease: the lock is free. */
    public record Free() implements Reply {}

    /**
     * Held by the owners of {@code holdCounts} (one exclusive holder, whose count 0 means handed over
     * and not claimed yet; or shared holders, with the exclusive one they stand beside), with
     * {@code remaining} lease (the longest), {@code token} (the newest), and {@code waiters} live
     * queue entries (-1: the dialect keeps no queue).
     */
    public record Held(
            Map<String, Integer> holdCounts,
            Duration remaining,
            long token,
            int waiters,
            Map<String, Integer> weights,
            int capacity)
            implements Reply {

        /** A state without weights or a stored capacity (a listing's row). */
        public Held(Map<String, Integer> holdCounts, Duration remaining, long token, int waiters) {
            this(holdCounts, remaining, token, waiters, Map.of(), -1);
        }

        /** This state and one more holder's row. */
        Held and(Held other) {
            Map<String, Integer> counts = new LinkedHashMap<>(holdCounts);
            counts.putAll(other.holdCounts);
            Map<String, Integer> w = new LinkedHashMap<>(weights);
            w.putAll(other.weights);
            return new Held(
                    Map.copyOf(counts),
                    remaining.compareTo(other.remaining) >= 0 ? remaining : other.remaining,
                    Math.max(token, other.token),
                    Math.max(waiters, other.waiters),
                    Map.copyOf(w),
                    Math.max(capacity, other.capacity));
        }
    }

    /** Reads the rows of {@link #COLUMNS}, one per holder, or none. */
    public static Reply decode(ResultSet rs) throws SQLException {
        @Nullable Held all = null;
        while (rs.next()) {
            Held one = held(rs, 1);
            int weight = rs.getInt(6);
            int capacity = rs.getInt(7);
            if (rs.wasNull()) {
                capacity = -1;
            }
            one = new Held(
                    one.holdCounts(),
                    one.remaining(),
                    one.token(),
                    one.waiters(),
                    weight > 0 ? Map.of(rs.getString(1), weight) : Map.of(),
                    capacity);
            all = all == null ? one : all.and(one);
        }
        return all == null ? FREE : all;
    }

    /** The {@link #COLUMNS} of the current row, starting at column {@code first}. */
    static Held held(ResultSet rs, int first) throws SQLException {
        return new Held(
                Map.of(rs.getString(first), rs.getInt(first + 1)),
                NamedSql.ofMicros(rs.getLong(first + 2)),
                rs.getLong(first + 3),
                rs.getInt(first + 4));
    }
}
