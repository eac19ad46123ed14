package io.lockkit.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB 10.6 or later, and MySQL 8 by design: acquire, release and abandon call the lock table's
 * procedures (one READ COMMITTED transaction each, bounding its own lock waits); the other
 * operations are plain statements; wake-ups come from a {@link WakeUpPoller}, as these databases have
 * no LISTEN/NOTIFY. Thread-safe.
 */
// Design notes.
// - The same queue and hand-over as on PostgreSQL (see mariadb/migration/V1__lockkit_locks.sql): a
//   release nobody waits for is one DELETE; a waiter of the releasing client is granted the lock
//   outright; a waiter of another client gets it to claim, and its process's poller wakes only it.
// - Time: microseconds since the epoch from UTC_TIMESTAMP(6), read after the row is locked; no time
//   zone enters (MySQL's NOW() depends on the session's).
// - Tokens: a one-row counter (MySQL has no sequences), drawn as the last write of the transaction
//   that locked the lock's row, and floored by the clock in microseconds: they follow the order of
//   holds, and stay above every token handed out even if the counter went back (a crash without
//   flushing each commit, a restored backup, a promoted replica). They are large numbers.
// - Lock waits: each procedure sets innodb_lock_wait_timeout to the provider's timeout (whole
//   seconds) for its own call and sets it back; no JDBC query timeout on the calls (Connector/J's
//   for MySQL runs a timer and a KILL QUERY per statement). The socket timeout covers a server that
//   stops answering.
// - Migrations take GET_LOCK('<table>_migration'): MariaDB's DDL is not transactional, so two
//   providers starting together must not run them at once.
// - MySQL 8 (untested here): the SQL keeps to what both share (see the migration's header); the
//   MariaDB driver serves both (jdbc:mariadb:, and jdbc:mysql: with permitMysqlScheme), MySQL's
//   Connector/J too. What differs: the binary log must be ROW or MIXED for READ COMMITTED (MySQL 8's
//   default is ROW); VALUES() in ON DUPLICATE KEY UPDATE is deprecated there (a warning);
//   COLLATE on procedure parameters needs MySQL 8.0.30 or later; caching_sha2_password accounts
//   need TLS or the server's public key (allowPublicKeyRetrieval) for the driver to log in.
public final class MariaDbDialect extends Dialect {

    /** The jar folder of the dialect's SQL. */
    public static final String FOLDER = "/io/lockkit/jdbc/mariadb";

    private static final Map<String, Set<String>> UNUSED = Map.of(
            AcquireStatement.NAME, Set.of("gate"),
            ReleaseStatement.NAME, Set.of("channel", "origin"),
            AbandonStatement.NAME, Set.of("channel"),
            ForceReleaseStatement.NAME, Set.of("channel"),
            SharedStatement.NAME, Set.of("channel"));

    public MariaDbDialect(Context context) {
        super(FOLDER, context, UNUSED, MIGRATIONS);
    }

    @Override
    public ForceReleaseStatement.Reply forceRelease(Connection c, ForceReleaseStatement.Args args) throws SQLException {
        update(c, "forceRelease.holders", args);
        if (update(c, "forceRelease.valid", args) > 0) {
            return ForceReleaseStatement.of(true, true);
        }
        return ForceReleaseStatement.of(update(c, "forceRelease.any", args) > 0, false);
    }

    @Override
    void beginShared(Connection c) throws SQLException {
        // InnoDB's default REPEATABLE READ would take gap locks on the holders' key ranges.
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }

    /** The state of the locks with these row keys, in one query. */
    List<WatchStatement.Row> watch(Connection c, Collection<String> keys) throws SQLException {
        return run(c, WatchStatement.NAME, WatchStatement.Args.of(keys), WatchStatement::decode);
    }

    @Override
    public @Nullable WakeUpSource wakeUps(
            ConnectionSource connections, WakeUpSource.Dispatcher dispatcher, ThreadFactory threads) {
        return new WakeUpPoller(connections, this, dispatcher, threads);
    }

    @Override
    public void driverProperties(String url, int timeoutSeconds, Properties p) {
        // Both drivers take these names (milliseconds); the socket timeout is set per connection.
        p.setProperty("connectTimeout", Integer.toString(timeoutSeconds * 1000));
        p.setProperty("tcpKeepAlive", "true");
        if (url.startsWith("jdbc:mysql:")) {
            p.setProperty("permitMysqlScheme", "true"); // the MariaDB driver, if it is the one that answers
        }
    }

    @Override
    protected boolean driverTakes(String url) {
        // The MariaDB driver takes jdbc:mysql: only with permitMysqlScheme, which driverProperties sets.
        return super.driverTakes(url)
                || (url.startsWith("jdbc:mysql:")
                        && super.driverTakes(url + (url.indexOf('?') < 0 ? "?" : "&") + "permitMysqlScheme"));
    }

    @Override
    protected @Nullable String driverArtifact(String url) {
        return url.startsWith("jdbc:mysql:")
                ? "org.mariadb.jdbc:mariadb-java-client or com.mysql:mysql-connector-j"
                : "org.mariadb.jdbc:mariadb-java-client";
    }

    @Override
    public boolean connectionLost(SQLException e) {
        int code = e.getErrorCode();
        // Connection killed (KILL CONNECTION), server shutdown, gone away, lost during a query.
        return super.connectionLost(e) || code == 1927 || code == 1053 || code == 2006 || code == 2013;
    }

    @Override
    protected Set<String> schemaStates() {
        return Set.of(
                "42S02", // table does not exist (1146)
                "#1305", // procedure does not exist (SQLState 42000)
                "42S22"); // unknown column
    }

    @Override
    protected Set<String> unavailableStates() {
        return Set.of(
                "40001", // deadlock (1213): the next call succeeds
                "#1205", // lock wait timeout (the procedures' innodb_lock_wait_timeout)
                "70100", // query interrupted (KILL QUERY)
                "#1040", "#1203", // too many connections
                "HY008"); // JDBC query timeout
    }

    @Override
    public void migrate(Connection c, int installed) throws SQLException {
        String lock = context.table() + "_migration";
        try (PreparedStatement get = c.prepareStatement("SELECT GET_LOCK(?, ?)")) {
            get.setString(1, lock);
            get.setInt(2, Math.max(30, context.timeoutSeconds()));
            try (ResultSet rs = get.executeQuery()) {
                if (!rs.next() || rs.getInt(1) != 1) {
                    throw new SQLException(
                            "another provider has been migrating " + context.table() + " for too long", "HYT00");
                }
            }
        }
        try {
            int now;
            try {
                now = installedVersion(c);
            } catch (SQLException e) {
                if (!schemaMissing(e)) {
                    throw e;
                }
                now = 0;
            }
            runMigrations(c, now);
        } finally {
            try (PreparedStatement release = c.prepareStatement("SELECT RELEASE_LOCK(?)")) {
                release.setString(1, lock);
                release.executeQuery().close();
            }
        }
    }
}
