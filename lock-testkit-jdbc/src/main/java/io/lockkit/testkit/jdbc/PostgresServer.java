package io.lockkit.testkit.jdbc;

import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A running PostgreSQL server handed out by {@link PostgresFixture}, with helpers for setting it up
 * and breaking it in tests: plain SQL, stop, start, restart. Closing it stops what the fixture
 * started (process or container) and removes its data; a database reached through an explicit URL
 * is left alone.
 *
 * <p>Thread-safe: SQL may be run from several threads at once (each call opens its own connection),
 * and {@link #stop()}, {@link #start()} and {@link #restart()} are serialized.
 */
public final class PostgresServer implements TestServer {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final Source source;
    private final ServerControl control;
    private final String redactedUrl;
    private final String version;

    PostgresServer(Source source, ServerControl control, String redactedUrl) {
        this.source = source;
        this.control = control;
        this.redactedUrl = redactedUrl;
        this.version = String.valueOf(query("SHOW server_version"));
    }

    /**
     * The JDBC URL of the server's database, user and password included as parameters, e.g.
     * {@code jdbc:postgresql://127.0.0.1:35432/postgres?user=postgres}. It stays the same across
     * {@link #restart()}.
     */
    public String jdbcUrl() {
        return control.jdbcUrl();
    }

    /** Where the server came from. */
    public Source source() {
        return source;
    }

    /** The server's version as it reports it, e.g. {@code 17.6}. */
    public String version() {
        return version;
    }

    /** Whether the fixture started this server, so that {@link #stop()} and {@link #start()} work. */
    public boolean canStop() {
        return control.owned();
    }

    /** The postmaster's process id, when the fixture runs the server as a local process and it is up. */
    public OptionalLong pid() {
        return control.pid();
    }

    /** A new connection to the server's database, in autocommit; the caller closes it. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl());
    }

    /**
     * Runs one SQL statement on a connection of its own and returns the first column of its first
     * row, or null when it returns none (or no result set).
     *
     * @throws IllegalStateException when the statement fails
     */
    public @Nullable Object query(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.setQueryTimeout(30);
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    return rs.next() ? rs.getObject(1) : null;
                }
            }
            return null;
        } catch (SQLException e) {
            throw new IllegalStateException("'" + sql + "' failed on " + redactedUrl + ": " + e.getMessage(), e);
        }
    }

    /** Whether the server accepts a connection and answers a query now. */
    public boolean isRunning() {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.setQueryTimeout((int) PROBE_TIMEOUT.toSeconds());
            s.execute("SELECT 1");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Stops the server (a fast shutdown: sessions are ended, data is kept); returns once it no longer
     * accepts connections.
     *
     * @throws UnsupportedOperationException for a database the fixture did not start
     */
    public synchronized void stop() {
        control.stop();
    }

    /**
     * Starts a stopped server on the same port with the same data; returns once it accepts
     * connections. Does nothing when it runs.
     *
     * @throws UnsupportedOperationException for a database the fixture did not start
     */
    public synchronized void start() {
        control.start();
    }

    /** Stops and starts the server; clients' connections are broken, the data stays. */
    public synchronized void restart() {
        control.stop();
        control.start();
    }

    /**
     * This server as the backend of the kit's outage tests (see
     * {@link io.lockkit.testkit.LockContractTest#backendControl()}): {@link #stop()} and
     * {@link #start()}, which keep the data; starting without the holds runs the statement
     * {@code forgetHolds} (e.g. a {@code DELETE} of the lock table) after the start. Empty for a
     * database the fixture did not start.
     *
     * @throws IllegalArgumentException when {@code forgetHolds} is null or blank
     */
    public Optional<BackendControl> backendControl(String forgetHolds) {
        if (forgetHolds == null || forgetHolds.isBlank()) {
            throw new IllegalArgumentException("forgetHolds must be an SQL statement");
        }
        if (!canStop()) {
            return Optional.empty();
        }
        return Optional.of(BackendControl.of(this::stop, this::start, () -> query(forgetHolds)));
    }

    /** Stops what the fixture started and removes its data; idempotent. */
    @Override
    public void close() {
        control.close();
    }

    @Override
    public String toString() {
        return "PostgresServer[" + source + ", " + redactedUrl + ", PostgreSQL " + version + ", " + control.describe()
                + "]";
    }

    /** Waits until {@code jdbcUrl} accepts a connection and answers a query. */
    static void awaitConnection(String jdbcUrl, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        SQLException last = null;
        while (System.nanoTime() - end < 0) {
            try (Connection c = DriverManager.getConnection(jdbcUrl);
                    Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                return;
            } catch (SQLException e) {
                last = e;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
        throw new IllegalStateException(
                "PostgreSQL at " + PostgresFixture.redact(jdbcUrl) + " did not accept a connection within "
                        + timeout.toMillis() + " ms: " + (last == null ? "no attempt" : last.getMessage()),
                last);
    }
}
