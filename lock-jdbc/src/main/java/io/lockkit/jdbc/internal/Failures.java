package io.lockkit.jdbc.internal;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.jdbc.LockSchemaException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@link SQLException}s into lockkit's exceptions: the database unreachable, gone or too slow
 * becomes a {@link BackendUnavailableException}; a missing table or sequence a
 * {@link LockSchemaException}; anything else a plain {@link LockException}. Stateless.
 */
public final class Failures {

    /** SQLStates of a database that is shutting down, overloaded, or cancelled a statement that ran too long. */
    private static final Set<String> UNAVAILABLE = Set.of(
            "57014", // query_canceled (our query timeout)
            "57P01", "57P02", "57P03", // admin shutdown, crash shutdown, cannot connect now
            "53000", "53100", "53200", "53300", // insufficient resources, too many connections
            "40001", "40P01", // serialization failure, deadlock: the next call succeeds
            "55P03", // lock_not_available
            "HYT00", "HYT01", // timeouts (H2: lock wait timeout)
            "90131"); // H2: concurrent update
    /** SQLStates of a missing table or sequence. */
    private static final Set<String> SCHEMA = Set.of(
            "42P01", // PostgreSQL undefined_table (also a missing sequence)
            "42883", // PostgreSQL undefined_function (the lock table's functions, schema from before they existed)
            "42S02", "42102", "42S01", // H2 / standard: table not found
            "90036", "42S22", "42122", "42703"); // sequence or column not found

    private Failures() {}

    /** Whether the connection is broken: a fresh connection may succeed where this one failed. */
    public static boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLNonTransientConnectionException
                || e instanceof SQLTransientConnectionException
                || e instanceof SQLRecoverableException
                || (state != null && (state.startsWith("08") || state.startsWith("57P")))
                || "90067".equals(state)
                || "90098".equals(state)
                || "90121".equals(state); // H2: connection broken, database closed
    }

    /** The lockkit exception for a failed call on lock {@code name} (null: no single lock). */
    public static LockException map(@Nullable String name, String what, SQLException e) {
        String state = e.getSQLState();
        String detail = what + " failed: " + e.getMessage() + (state == null ? "" : " [SQLState " + state + "]");
        if (connectionLost(e) || e instanceof SQLTimeoutException || (state != null && UNAVAILABLE.contains(state))) {
            return new BackendUnavailableException(name, detail, e);
        }
        if (state != null && SCHEMA.contains(state)) {
            return new LockSchemaException(
                    name,
                    detail
                            + "; create the lock table from the DDL in the lock-jdbc jar, or build the provider with createSchema(true)",
                    e);
        }
        return new LockException(name, detail, e);
    }
}
