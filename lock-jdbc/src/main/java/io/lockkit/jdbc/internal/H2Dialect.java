package io.lockkit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * H2 2.x: acquisition is one short transaction that locks the row first and then decides (H2 has no
 * stored routines); every other operation is one statement; renewal one JDBC batch. No queue and no
 * notifications: waiters of other clients poll. Thread-safe.
 */
// Design notes: a section <operation>.<step> of h2/statements.sql is one step of an operation; the
// steps' parameters are components of the operation's argument record, so SqlContractTest holds them
// like the other dialects' statements. A release tries the common case first (its last hold: one
// DELETE that also reports whether the lease was valid), then lowers a reentrant count; the owner is
// the only writer of its valid row, so the two statements need no transaction.
public final class H2Dialect extends Dialect {

    /** The jar folder of the dialect's SQL. */
    public static final String FOLDER = "/io/lockkit/jdbc/h2";

    private static final Map<String, Set<String>> UNUSED = Map.of(
            AcquireStatement.NAME, Set.of("waitId", "gate", "lockTimeoutMs"),
            ReleaseStatement.NAME, Set.of("client", "maxStreak", "claim", "channel", "origin", "lockTimeoutMs"),
            ForceReleaseStatement.NAME, Set.of("channel"),
            SharedStatement.NAME, Set.of("channel"),
            FairStatement.NAME, Set.of("lease"));

    /** The exclusive waits queued behind shared holders by this provider ("key owner"), to dequeue. */
    private final Set<String> queued = ConcurrentHashMap.newKeySet();

    public H2Dialect(Context context) {
        super(FOLDER, context, UNUSED, MIGRATIONS);
    }

    /** The locked row, or null. */
    private record Row(String owner, int holdCount, long token, long remainingMicros) {}

    @Override
    public AcquireStatement.Reply acquire(Connection c, AcquireStatement.Args args) throws SQLException {
        try {
            return Transactions.run(c, () -> {
                Optional<Row> locked = run(
                        c,
                        "acquire.lockRow",
                        args,
                        rs -> rs.next()
                                ? Optional.of(new Row(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4)))
                                : Optional.empty());
                if (locked.isEmpty()) {
                    update(c, "acquire.insert", args);
                    return admitted(c, args, token(c, "acquire.drawToken", args));
                }
                Row row = locked.get();
                if (row.remainingMicros() > 0) {
                    if (!row.owner().equals(args.owner())) {
                        if (SharedStatement.HOLDERS.equals(row.owner())
                                && args.maxWait().compareTo(Duration.ZERO) > 0) {
                            update(c, "acquire.queue", args); // writer preference: keeps new shared claims out
                            queued.add(args.key() + " " + args.owner());
                        }
                        return new AcquireStatement.Busy(NamedSql.ofMicros(row.remainingMicros()));
                    }
                    update(c, "acquire.reenter", args);
                    return new AcquireStatement.Acquired(row.token());
                }
                return admitted(c, args, token(c, "acquire.takeOver", args));
            });
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) {
                // Another client inserted the row between our look and our insert: it holds the lock now.
                return new AcquireStatement.Busy(null);
            }
            throw e;
        }
    }

    /** A new hold: an entry this provider queued for it goes (only a wait behind shared holders has one). */
    private AcquireStatement.Reply admitted(Connection c, AcquireStatement.Args args, long token) throws SQLException {
        if (!queued.isEmpty() && queued.remove(args.key() + " " + args.owner())) {
            update(c, "acquire.dequeue", args);
        }
        return new AcquireStatement.Acquired(token);
    }

    private long token(Connection c, String step, Record args) throws SQLException {
        return run(c, step, args, rs -> {
            if (!rs.next()) {
                throw new SQLException(step + " returned no token");
            }
            return rs.getLong(1);
        });
    }

    @Override
    public ReleaseStatement.Reply release(Connection c, ReleaseStatement.Args args) throws SQLException {
        Optional<Boolean> held =
                run(c, "release.delete", args, rs -> rs.next() ? Optional.of(rs.getBoolean(1)) : Optional.empty());
        if (held.isPresent()) {
            return held.get() ? ReleaseStatement.freed() : ReleaseStatement.lapsed();
        }
        return update(c, "release.lower", args) > 0 ? ReleaseStatement.stillHeld() : ReleaseStatement.notHeld();
    }

    /** Drops the wait's queue entry, where this provider queued one (behind shared holders). */
    @Override
    public AbandonStatement.Reply abandon(Connection c, AbandonStatement.Args args) throws SQLException {
        if (queued.remove(args.key() + " " + args.owner())) {
            update(c, "acquire.dequeue", args);
        }
        return new AbandonStatement.Left();
    }

    @Override
    public boolean abandons() {
        return true;
    }

    @Override
    public ForceReleaseStatement.Reply forceRelease(Connection c, ForceReleaseStatement.Args args) throws SQLException {
        update(c, "forceRelease.holders", args);
        return super.forceRelease(c, args);
    }

    @Override
    public boolean queues() {
        return false;
    }

    @Override
    public @Nullable WakeUpSource wakeUps(
            ConnectionSource connections, WakeUpSource.Dispatcher dispatcher, ThreadFactory threads) {
        return null;
    }

    @Override
    protected @Nullable String driverArtifact(String url) {
        return url.startsWith("jdbc:h2:") ? "com.h2database:h2" : null;
    }

    @Override
    public void driverProperties(String url, int timeoutSeconds, Properties properties) {
        // H2's defaults serve: a TCP connection fails fast when the server is gone.
    }

    @Override
    public boolean connectionLost(SQLException e) {
        int code = e.getErrorCode();
        return super.connectionLost(e) || code == 90067 || code == 90098 || code == 90121; // broken, closed
    }

    @Override
    protected Set<String> schemaStates() {
        return Set.of(
                "42S02", "42S04", // table not found (42S04: not found in a database that is empty)
                "42S22", // column not found
                "#90036"); // sequence not found
    }

    @Override
    protected Set<String> unavailableStates() {
        return Set.of("HYT00", "HYT01", "#90131"); // timeouts (lock wait timeout), concurrent update
    }
}
