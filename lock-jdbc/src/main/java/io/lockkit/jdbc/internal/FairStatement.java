package io.lockkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code fair.<step>} statements of every dialect: the look at the queue before a fair attempt
 * ({@code fair.check}), a place taken or kept in it ({@code fair.queue}, and {@code fair.mark} where
 * the dialect marks the lock row apart), and a place left ({@code fair.leave}), all bound from one
 * argument record. {@code SqlContractTest} holds the dialects' SQL to these names. Values are
 * immutable and thread-safe.
 */
public final class FairStatement {

    /** The operation's name in the statements files (its steps are {@code fair.<step>}). */
    public static final String NAME = "fair";

    /** The columns of {@code fair.check}, in order. */
    public static final List<String> CHECK_COLUMNS = List.of("holder", "queued", "ahead", "remaining_us");

    private FairStatement() {}

    /**
     * The steps' parameters.
     *
     * @param key the lock's row key
     * @param owner the owner id of the fair claim
     * @param weight what it waits for: 0 the whole name (exclusive), k a shared claim of k units
     * @param keep how long its queue entry lives from now unless it asks again (or is admitted)
     * @param lease the lease its attempt asks for (kept with the entry, as every waiter's)
     */
    public record Args(String key, String owner, int weight, Duration keep, Duration lease) {

        /** The arguments of a look at, or a place in, {@code name}'s queue. */
        public static Args of(String name, String owner, int weight, Duration keep, Duration lease) {
            return new Args(Keys.of(name), owner, weight, keep, lease);
        }

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /**
     * What {@code fair.check} saw.
     *
     * @param holder whether the owner holds the name's row now (reentrant, or handed to it to claim)
     * @param queued whether the owner has a live place in the queue
     * @param ahead the live places of other owners before its own (all of them when it has none)
     * @param remaining the lease left of the name's row, null when it has none
     */
    public record Check(
            boolean holder,
            boolean queued,
            int ahead,
            @Nullable Duration remaining) {

        /** Reads the one row of {@link #CHECK_COLUMNS}. */
        static Check decode(ResultSet rs) throws SQLException {
            if (!rs.next()) {
                throw new SQLException("fair.check answered no row");
            }
            boolean holder = rs.getBoolean(1);
            boolean queued = rs.getBoolean(2);
            int ahead = rs.getInt(3);
            long remaining = rs.getLong(4);
            return new Check(holder, queued, ahead, rs.wasNull() ? null : NamedSql.ofMicros(remaining));
        }
    }
}
