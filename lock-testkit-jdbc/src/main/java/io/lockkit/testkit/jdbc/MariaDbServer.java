package io.lockkit.testkit.jdbc;

import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A running MariaDB server handed out by {@link MariaDbFixture}, with helpers for tests: a fresh
 * database per test class, plain SQL, stop, start, restart, and killing a user's connections.
 * Closing it stops what the fixture started and removes its data; a server reached through an
 * explicit URL is left alone.
 *
 * <p>Thread-safe: each SQL call opens its own connection; {@link #stop()}, {@link #start()} and
 * {@link #restart()} are serialized.
 */
public final class MariaDbServer implements TestServer {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final @Nullable MariaDbProcess process;
    private final String url;
    private final String version;

    MariaDbServer(@Nullable MariaDbProcess process, String url) {
        this.process = process;
        this.url = url;
        this.version = String.valueOf(query(null, "SELECT VERSION()"));
    }

    /** The server's JDBC URL as an administrator, without a database, e.g. {@code jdbc:mariadb://127.0.0.1:33061/?user=root}. */
    public String jdbcUrl() {
        return url;
    }

    /** The JDBC URL of {@code database} on this server, as the administrator. */
    public String jdbcUrl(String database) {
        int slash = url.indexOf('/', "jdbc:mariadb://".length());
        return url.substring(0, slash + 1)
                + database
                + url.substring(url.indexOf('?') < 0 ? url.length() : url.indexOf('?'));
    }

    /**
     * Creates a new, empty database named {@code prefix} plus a number unique in this JVM and returns
     * its JDBC URL (as the administrator). Test classes that share the server each take their own.
     */
    public String createDatabase(String prefix) {
        String name = prefix + "_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        query(null, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        return jdbcUrl(name);
    }

    /** The server's version, e.g. {@code 10.11.19-MariaDB-0+deb12u1}. */
    public String version() {
        return version;
    }

    /** Whether the fixture started this server, so that {@link #stop()} and {@link #start()} work. */
    public boolean canStop() {
        return process != null;
    }

    /** The server's process id while the fixture runs it. */
    public OptionalLong pid() {
        return process == null ? OptionalLong.empty() : process.pid();
    }

    /** A new connection to {@code database} (null: none), as the administrator, in autocommit. */
    public Connection connect(@Nullable String database) throws SQLException {
        return DriverManager.getConnection(database == null ? url : jdbcUrl(database));
    }

    /**
     * Runs one SQL statement in {@code database} (null: none) on a connection of its own and returns the
     * first column of its first row, or null when it returns none.
     *
     * @throws IllegalStateException when the statement fails
     */
    public @Nullable Object query(@Nullable String database, String sql) {
        try (Connection c = connect(database);
                Statement s = c.createStatement()) {
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    return rs.next() ? rs.getObject(1) : null;
                }
            }
            return null;
        } catch (SQLException e) {
            throw new IllegalStateException("'" + sql + "' failed: " + e.getMessage(), e);
        }
    }

    /** Kills every connection of {@code user} ({@code KILL CONNECTION}); returns how many. */
    public int killConnections(String user) {
        int killed = 0;
        try (Connection c = connect(null);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = '"
                        + user.replace("'", "''") + "' AND ID <> CONNECTION_ID()")) {
            java.util.List<Long> ids = new java.util.ArrayList<>();
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
            for (long id : ids) {
                try (Statement k = c.createStatement()) {
                    k.execute("KILL CONNECTION " + id);
                    killed++;
                } catch (SQLException e) {
                    // ended meanwhile
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("killing the connections of " + user + " failed: " + e.getMessage(), e);
        }
        return killed;
    }

    /** Shuts the server down cleanly; returns once it has exited. */
    public synchronized void stop() {
        owned().stop();
    }

    /** Starts a stopped server on the same port with the same data; returns once it accepts connections. */
    public synchronized void start() {
        owned().start();
    }

    /** Stops and starts the server; clients' connections are broken, the data stays. */
    public synchronized void restart() {
        owned().stop();
        owned().start();
    }

    /**
     * This server as the kit's backend control (see
     * {@link io.lockkit.testkit.LockContractTest#backendControl()}): {@link #stop()} and
     * {@link #start()}, which keep the data; starting without the holds runs the statement
     * {@code forgetHolds} in {@code database} (e.g. a {@code DELETE} of the lock table) after the
     * start. Empty for a server the fixture did not start.
     *
     * @throws IllegalArgumentException when {@code database} or {@code forgetHolds} is null or blank
     */
    public Optional<BackendControl> backendControl(String database, String forgetHolds) {
        if (database == null || database.isBlank()) {
            throw new IllegalArgumentException("database must name a database");
        }
        if (forgetHolds == null || forgetHolds.isBlank()) {
            throw new IllegalArgumentException("forgetHolds must be an SQL statement");
        }
        if (!canStop()) {
            return Optional.empty();
        }
        return Optional.of(BackendControl.of(this::stop, this::start, () -> query(database, forgetHolds)));
    }

    private MariaDbProcess owned() {
        if (process == null) {
            throw new UnsupportedOperationException(
                    "the MariaDB at " + url + " was not started by the fixture, so it cannot be stopped or started");
        }
        return process;
    }

    /** Stops what the fixture started and removes its data; idempotent. */
    @Override
    public void close() {
        if (process != null) {
            process.close();
        }
    }

    @Override
    public String toString() {
        return "MariaDbServer[" + url + ", " + version
                + (process == null ? ", not started by the fixture" : ", " + process.describe()) + "]";
    }
}
