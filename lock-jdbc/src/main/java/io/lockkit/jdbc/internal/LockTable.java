package io.lockkit.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The lock table's operations in one SQL dialect, each on a connection the caller borrowed (in
 * autocommit) and gives back. Implementations are stateless apart from their statements and are
 * thread-safe. Every round trip to the database is counted in {@link #statements()}.
 */
public abstract class LockTable {

    /** An acquisition attempt's answer: acquired with a token, or busy with the lease left (-1: unknown). */
    public record Attempt(boolean acquired, long token, long remainingMicros) {}

    /** A hold to renew. */
    public record Hold(String key, String owner, long leaseMicros) {}

    /** A held lock: its owner, hold count, the lease left, its token and live waiters (-1: this dialect keeps no queue). */
    public record Held(String owner, int holdCount, long remainingMicros, long token, int waiters) {}

    /** A held lock found by {@link #list}: its row key, name and state. */
    public record Listed(String key, String name, Held held) {}

    /** What an acquisition asks for: the lease, and whether (and how long) the owner will wait. */
    public record Ask(
            String key,
            String name,
            String owner,
            long leaseMicros,
            boolean waiting,
            long maxWaitMicros,
            long waitId) {}

    /**
     * A release's answer: {@link #NOT_HELD}, {@link #LAPSED}, {@link #RELEASED} or the holds left;
     * the owner it was handed to, or null; when it was granted to that owner's wait outright, the
     * grantee's token and wait id (else 0).
     */
    public record Released(int left, @Nullable String grantee, long grantToken, long grantWaitId) {
        public Released(int left, @Nullable String grantee) {
            this(left, grantee, 0, 0);
        }
    }

    /** Release outcomes. */
    public static final int NOT_HELD = -2;

    public static final int LAPSED = -1;
    public static final int RELEASED = 0;

    protected final Map<String, String> sql;
    private final int queryTimeoutSeconds;
    private final LongAdder statements = new LongAdder();
    private final java.util.concurrent.ConcurrentHashMap<String, LongAdder> byStatement =
            new java.util.concurrent.ConcurrentHashMap<>();

    protected LockTable(Map<String, String> sql, int queryTimeoutSeconds) {
        this.sql = sql;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

    /** The statement timeout, in whole seconds. */
    protected final int queryTimeoutSeconds() {
        return queryTimeoutSeconds;
    }

    public abstract Attempt acquire(Connection c, Ask ask) throws SQLException;

    /** Releases one hold; {@link #LAPSED} means the owner's row had lapsed and is gone. */
    public abstract Released release(Connection c, String key, String owner, String channel) throws SQLException;

    /**
     * The owner stopped waiting (wait {@code waitId}): leave the queue and pass on a hand-over not
     * claimed, or a grant to that wait not taken. Nothing where there is no queue.
     */
    public void abandon(Connection c, String key, String owner, long waitId, String channel) throws SQLException {}

    /** Whether this dialect queues waiters, so that {@link #abandon} is needed. */
    public boolean queues() {
        return false;
    }

    /** Renews every hold; returns for each whether it still existed (in the order given). */
    public abstract boolean[] renew(Connection c, List<Hold> holds) throws SQLException;

    /** Deletes the lock's row: 1 if its lease was valid, 0 if it had lapsed, -1 if there was none. */
    public abstract int forceRelease(Connection c, String key, String channel) throws SQLException;

    public abstract Optional<Held> inspect(Connection c, String key) throws SQLException;

    /**
     * Up to {@code limit} held locks whose names start with {@code prefix}, in key order after
     * {@code afterKey} ({@code ""}: from the first); one query.
     */
    public abstract List<Listed> list(Connection c, String prefix, String afterKey, int limit) throws SQLException;

    /** Whether a release notifies other clients itself (PostgreSQL NOTIFY). */
    public abstract boolean notifies();

    /** Round trips made so far, for tests and metrics. */
    public long statements() {
        return statements.sum();
    }

    /** Round trips made so far with the named statement of the dialect's statements file. */
    public long statements(String statement) {
        LongAdder n = byStatement.get(statement);
        return n == null ? 0 : n.sum();
    }

    /** The named statement, ready to run once (one round trip: a batch counts once). */
    protected final PreparedStatement prepare(Connection c, String name) throws SQLException {
        return prepare(c, name, java.util.Objects.requireNonNull(sql.get(name), () -> "no statement named " + name));
    }

    /** {@code text} (the statement called {@code name}), ready to run once and counted as one round trip. */
    protected final PreparedStatement prepare(Connection c, String name, String text) throws SQLException {
        return prepare(c, name, text, true);
    }

    /**
     * {@code text} (the statement called {@code name}), ready to run once and counted as one round
     * trip; with {@code timed} false without a JDBC query timeout, for a statement that bounds its
     * own waits on the server.
     */
    protected final PreparedStatement prepare(Connection c, String name, String text, boolean timed)
            throws SQLException {
        PreparedStatement ps = c.prepareStatement(text);
        if (timed) {
            ps.setQueryTimeout(queryTimeoutSeconds);
        }
        statements.increment();
        byStatement.computeIfAbsent(name, k -> new LongAdder()).increment();
        return ps;
    }
}
