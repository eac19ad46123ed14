package io.lockkit.jdbc.internal;

import io.lockkit.LockException;
import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * How a provider's calls reach the database: refused once the provider is closed, on a connection
 * borrowed for the call and given back after it, retried once on a fresh connection when the first
 * one was found broken (a database restart breaks every idle connection), failures translated by
 * the dialect. Thread-safe.
 */
// Design notes: the statement that failed on a broken connection cannot have committed unless the
// database failed between commit and reply; then a re-sent acquisition is one reentrant count too
// many (the core releases it) and a re-sent release finds the lock released (or granted on) and is
// reported as a loss at the next renewal, never silently.
public final class JdbcCalls {

    /** A call on a borrowed connection. */
    @FunctionalInterface
    public interface Call<T> {
        T apply(Connection c) throws SQLException;
    }

    private final ConnectionSource connections;
    private final Dialect dialect;
    private volatile boolean closed;

    public JdbcCalls(ConnectionSource connections, Dialect dialect) {
        this.connections = connections;
        this.dialect = dialect;
    }

    /**
     * Runs {@code call} for lock {@code name} (null: no single lock), {@code what} naming it in a
     * failure.
     *
     * @throws LockException once {@link #close()} ran; a {@code BackendUnavailableException} when the
     *     database could not serve it; a {@code LockSchemaException} when the schema is missing
     */
    public <T> T run(@Nullable String name, String what, Call<T> call) {
        checkOpen(name);
        for (int attempt = 0; ; attempt++) {
            Connection c;
            try {
                c = connections.borrow();
            } catch (SQLException e) {
                throw dialect.failure(name, what, e);
            }
            boolean broken = false;
            try {
                return call.apply(c);
            } catch (SQLException e) {
                broken = dialect.connectionLost(e);
                if (broken) {
                    connections.discardIdle();
                    if (attempt == 0 && !closed) {
                        continue;
                    }
                }
                throw dialect.failure(name, what, e);
            } finally {
                connections.giveBack(c, broken);
            }
        }
    }

    /** Fails once {@link #close()} ran. */
    public void checkOpen(@Nullable String name) {
        if (closed) {
            throw new LockException(name, "the JdbcLockProvider is closed");
        }
    }

    /** Whether {@link #close()} ran. */
    public boolean closed() {
        return closed;
    }

    /** Refuses every later call and closes the provider's own connections. */
    public void close() {
        closed = true;
        connections.close();
    }
}
