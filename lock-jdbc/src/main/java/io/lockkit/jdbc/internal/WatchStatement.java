package io.lockkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code watch} statement of the dialects without notifications that poll for their waiters
 * (MariaDB): the state of every lock a provider's threads wait for, in one query. Values are
 * immutable and thread-safe.
 */
public final class WatchStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "watch";

    /** The reply's columns, in order. */
    public static final List<String> COLUMNS = List.of("lock_key", "owner", "hold_count", "token", "remaining_us");

    private WatchStatement() {}

    /**
     * The statement's parameters.
     *
     * @param keys the row keys, as a JSON array of strings
     */
    public record Args(String keys) {

        /** The arguments for these row keys (hex, so they need no escaping in JSON). */
        public static Args of(Collection<String> keys) {
            StringBuilder json = new StringBuilder("[");
            for (String k : keys) {
                json.append(json.length() == 1 ? "\"" : ",\"").append(k).append('"');
            }
            return new Args(json.append(']').toString());
        }

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /**
     * A watched lock: free when {@code owner} is null (no row) or the lease ran out; else held by
     * {@code owner}, or handed to it to claim when {@code holdCount} is 0.
     */
    public record Row(String key, @Nullable String owner, int holdCount, long token, long remainingMicros) {

        /** Whether anyone may take the lock now. */
        public boolean free() {
            return owner == null || remainingMicros <= 0;
        }

        /** Whether it was handed to {@link #owner()}, who has not claimed it yet. */
        public boolean handedOver() {
            return !free() && holdCount == 0;
        }
    }

    /** Reads every row of {@link #COLUMNS}. */
    public static List<Row> decode(ResultSet rs) throws SQLException {
        List<Row> rows = new ArrayList<>();
        while (rs.next()) {
            rows.add(new Row(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getLong(4), rs.getLong(5)));
        }
        return rows;
    }
}
