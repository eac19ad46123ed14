package io.lockkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code abandon} statement of the dialects that queue waiters: the owner stopped waiting (wait
 * {@code waitId}), so its queue entry goes, and a hand-over it has not claimed, or a grant to this
 * wait it never took, passes to the next live waiter (or the lock is freed). {@code SqlContractTest}
 * holds the dialects' SQL to these names. Values are immutable and thread-safe.
 */
public final class AbandonStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "abandon";

    /** The reply's columns, in order, where one statement answers (the routine's OUT names). */
    public static final List<String> COLUMNS = List.of("o_grantee");

    private static final Reply LEFT = new Left();

    private AbandonStatement() {}

    /**
     * The statement's parameters.
     *
     * @param key the lock's row key
     * @param owner the owner that stopped waiting
     * @param waitId the wait that ended
     * @param claim how long the next waiter has to claim a hand-over passed on
     * @param channel the notification channel (PostgreSQL)
     * @param lockTimeoutMs how long the statement may wait for a row lock on the server
     */
    public record Args(String key, String owner, long waitId, Duration claim, String channel, int lockTimeoutMs) {

        /** The arguments of the end of {@code owner}'s wait {@code waitId} for the lock {@code name}. */
        public static Args of(String name, String owner, long waitId, Dialect.Context context) {
            return new Args(Keys.of(name), owner, waitId, context.claim(), context.channel(), context.lockTimeoutMs());
        }

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /** What the statement answered. */
    public sealed interface Reply permits Left, PassedOn {}

    /** The owner left the queue; nothing was handed to it (or it was freed). */
    public record Left() implements Reply {}

    /** A hand-over or grant to the owner went on to {@code grantee}. */
    public record PassedOn(String grantee) implements Reply {}

    /** Reads the one row of {@link #COLUMNS}: the grantee a hand-over went on to, or NULL. */
    public static Reply decode(ResultSet rs) throws SQLException {
        @Nullable String grantee = rs.next() ? rs.getString(1) : null;
        return grantee == null ? LEFT : new PassedOn(grantee);
    }
}
