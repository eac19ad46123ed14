package io.lockkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The {@code forceRelease} statement of every dialect: deletes the lock's row whoever holds it (and
 * wakes waiters). {@code SqlContractTest} holds the dialects' SQL to these names. Values are immutable
 * and thread-safe.
 */
public final class ForceReleaseStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "forceRelease";

    /** The reply's columns, in order, where one statement answers. */
    public static final List<String> COLUMNS = List.of("o_held");

    private static final Reply NO_ROW = new NoRow();
    private static final Reply WAS_HELD = new Deleted(true);
    private static final Reply WAS_LAPSED = new Deleted(false);

    private ForceReleaseStatement() {}

    /**
     * The statement's parameters.
     *
     * @param key the lock's row key
     * @param channel the notification channel (PostgreSQL)
     */
    public record Args(String key, String channel) {

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /** What the statement answered. */
    public sealed interface Reply permits NoRow, Deleted {}

    /** There was no row: the lock was free. */
    public record NoRow() implements Reply {}

    /** The row was deleted; {@code held}: its lease was still valid. */
    public record Deleted(boolean held) implements Reply {}

    /** The reply for a row that was deleted ({@code held}: with a valid lease) or none. */
    public static Reply of(boolean found, boolean held) {
        return !found ? NO_ROW : held ? WAS_HELD : WAS_LAPSED;
    }

    /** Reads the one row of {@link #COLUMNS} (whether the lease was valid), or none. */
    public static Reply decode(ResultSet rs) throws SQLException {
        return rs.next() ? of(true, rs.getBoolean(1)) : NO_ROW;
    }
}
