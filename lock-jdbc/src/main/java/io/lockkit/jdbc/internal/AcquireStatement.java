package io.lockkit.jdbc.internal;

import io.lockkit.spi.LockProvider;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code acquire} statement of every dialect: its arguments by name and its reply decoded. Takes
 * the lock, re-enters it, claims a hand-over, takes a grant made to this wait or a lapsed lease; else
 * reports how long the lease lasts and, when the owner will wait, queues it. {@code SqlContractTest}
 * holds the dialects' SQL to these names. Values are immutable and thread-safe.
 */
public final class AcquireStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "acquire";

    /** The reply's columns, in order, where one statement answers (the routine's OUT names). */
    public static final List<String> COLUMNS = List.of("o_token", "o_remaining_us");

    private AcquireStatement() {}

    /**
     * The statement's parameters.
     *
     * @param key the lock's row key ({@link Keys#of})
     * @param name the lock name, kept for operators
     * @param owner the owner id
     * @param lease the lease to set (a reentrant acquisition never shortens the current one)
     * @param maxWait how much longer the owner will wait if the lock is busy; zero: it is not queued
     * @param waitId the wait the attempt belongs to, 0 for none
     * @param claim how long a waiter's queue entry outlives the holder's lease (the claim timeout)
     * @param gate the namespace of the acquisitions' gate (PostgreSQL's advisory lock), per table
     * @param lockTimeoutMs how long the statement may wait for a row lock on the server
     */
    public record Args(
            String key,
            String name,
            String owner,
            Duration lease,
            Duration maxWait,
            long waitId,
            Duration claim,
            int gate,
            int lockTimeoutMs) {

        /** The arguments of one attempt of a provider. */
        public static Args of(LockProvider.LockRequest r, Dialect.Context context) {
            return new Args(
                    Keys.of(r.name()),
                    r.name(),
                    r.owner(),
                    r.lease(),
                    r.maxWait(),
                    r.waitId(),
                    context.claim(),
                    context.gate(),
                    context.lockTimeoutMs());
        }

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /** What the statement answered. */
    public sealed interface Reply permits Acquired, Busy {}

    /** The owner holds the lock, with fencing token {@code token}. */
    public record Acquired(long token) implements Reply {}

    /** Someone else holds it, for {@code remainingLease} more at most; null when that is not known. */
    public record Busy(@Nullable Duration remainingLease) implements Reply {}

    /** Reads the one row of {@link #COLUMNS}: a token when acquired, else NULL and the lease left (µs). */
    public static Reply decode(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            return new Busy(null);
        }
        long token = rs.getLong(1);
        if (!rs.wasNull()) {
            return new Acquired(token);
        }
        long remaining = rs.getLong(2);
        return new Busy(rs.wasNull() ? null : NamedSql.ofMicros(remaining));
    }
}
