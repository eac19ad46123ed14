package io.lockkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

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
    public static final List<String> COLUMNS = List.of("owner", "hold_count", "remaining_us", "token", "waiters");

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
     * Held by {@code owner} ({@code holdCount} 0: handed over, not claimed yet), with {@code remaining}
     * lease, {@code token}, and {@code waiters} live queue entries (-1: the dialect keeps no queue).
     */
    public record Held(String owner, int holdCount, Duration remaining, long token, int waiters) implements Reply {}

    /** Reads the one row of {@link #COLUMNS}, or none. */
    public static Reply decode(ResultSet rs) throws SQLException {
        return rs.next() ? held(rs, 1) : FREE;
    }

    /** The {@link #COLUMNS} of the current row, starting at column {@code first}. */
    static Held held(ResultSet rs, int first) throws SQLException {
        return new Held(
                rs.getString(first),
                rs.getInt(first + 1),
                NamedSql.ofMicros(rs.getLong(first + 2)),
                rs.getLong(first + 3),
                rs.getInt(first + 4));
    }
}
