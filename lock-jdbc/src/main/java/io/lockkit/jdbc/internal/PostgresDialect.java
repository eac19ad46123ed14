package io.lockkit.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL 12 or later: every operation one statement; acquire, release and abandon call the lock
 * table's PL/pgSQL functions, which bound their own lock waits (no JDBC query timeout on them);
 * releases notify waiting clients through {@code pg_notify}, heard by a {@link PgListener}.
 * Thread-safe.
 */
// Design notes: see postgresql/statements.sql and migration/V1__lockkit_locks.sql for what each
// statement does and why (the gate that keeps new rows' tokens in order, the queue and hand-over, the
// uncontended pair being one INSERT and one DELETE). Migrations run in one transaction under a
// transaction-level advisory lock of the table's gate namespace, so that providers starting together
// do not race on CREATE OR REPLACE FUNCTION ("tuple concurrently updated"), and a failed migration
// leaves nothing half-done (PostgreSQL's DDL is transactional).
public final class PostgresDialect extends Dialect {

    /** The jar folder of the dialect's SQL. */
    public static final String FOLDER = "/io/lockkit/jdbc/postgresql";

    /**
     * How many hand-overs in a row may go to a waiter of the releasing client ahead of an older
     * waiter of another client (as the Redis provider): 8.
     */
    public static final int MAX_LOCAL_STREAK = 8;

    public PostgresDialect(Context context) {
        super(FOLDER, context, Map.of(), MIGRATIONS);
    }

    @Override
    public boolean[] renew(Connection c, List<RenewStatement.Hold> holds) throws SQLException {
        Set<String> renewed = new HashSet<>();
        try (PreparedStatement ps = prepare(c, RenewStatement.NAME, true)) {
            statement(RenewStatement.NAME).bindArrays(ps, c, holds);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    renewed.add(rs.getString(1) + '\0' + rs.getString(2));
                }
            }
        }
        boolean[] out = new boolean[holds.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = renewed.contains(holds.get(i).key() + '\0' + holds.get(i).owner());
        }
        return out;
    }

    @Override
    public @Nullable WakeUpSource wakeUps(
            ConnectionSource connections, WakeUpSource.Dispatcher dispatcher, ThreadFactory threads) {
        if (!PgListener.driverPresent()) {
            return null;
        }
        return new PgListener(connections, context.channel(), context.origin(), dispatcher, threads, context.timeout());
    }

    @Override
    protected @Nullable String driverArtifact(String url) {
        return url.startsWith("jdbc:postgresql:") ? "org.postgresql:postgresql" : null;
    }

    @Override
    public void driverProperties(String url, int timeoutSeconds, Properties p) {
        if (url.startsWith("jdbc:postgresql:")) {
            String seconds = Integer.toString(timeoutSeconds);
            p.setProperty("connectTimeout", seconds);
            p.setProperty("loginTimeout", seconds);
            p.setProperty("tcpKeepAlive", "true");
            // A query timeout sends a cancel request, and the statement waits for it to be
            // delivered: bounded by this, else 10 s against a stalled server.
            p.setProperty("cancelSignalTimeout", seconds);
        }
    }

    @Override
    public boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return super.connectionLost(e) || (state != null && state.startsWith("57P"));
    }

    @Override
    protected Set<String> schemaStates() {
        return Set.of(
                "42P01", // undefined_table (also a missing sequence)
                "42883", // undefined_function (the lock table's functions)
                "42703"); // undefined_column
    }

    @Override
    protected Set<String> unavailableStates() {
        return Set.of(
                "57014", // query_canceled (our query timeout)
                "57P01", "57P02", "57P03", // admin shutdown, crash shutdown, cannot connect now
                "53000", "53100", "53200", "53300", // insufficient resources, too many connections
                "40001", "40P01", // serialization failure, deadlock: the next call succeeds
                "55P03"); // lock_not_available (the functions' lock_timeout)
    }

    @Override
    public void migrate(Connection c, int installed) throws SQLException {
        Transactions.run(c, () -> {
            try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?, 0)")) {
                lock.setInt(1, context.gate());
                lock.executeQuery().close();
            }
            // Another provider may have migrated while we waited: read the version again, in a way
            // that cannot fail (an error would abort the transaction).
            int now = installed;
            try (PreparedStatement exists = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
                exists.setString(1, versionTable());
                try (ResultSet rs = exists.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        now = installedVersion(c);
                    }
                }
            }
            runMigrations(c, now);
            return now;
        });
    }
}
