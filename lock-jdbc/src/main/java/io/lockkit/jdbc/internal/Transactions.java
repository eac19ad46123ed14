package io.lockkit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

/** Work in one transaction on a borrowed connection, for the dialects. Stateless. */
final class Transactions {

    /** Work of one transaction. */
    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    private Transactions() {}

    /**
     * Runs {@code work} in one transaction on {@code c}: committed when it returns, rolled back when
     * it throws (a failed rollback is left unsaid: the connection is broken, and the caller discards
     * it, while the work's own failure is what the caller hears); {@code c} is in autocommit again
     * after.
     */
    static <T> T run(Connection c, Work<T> work) throws SQLException {
        c.setAutoCommit(false);
        boolean done = false;
        try {
            T result = work.run();
            c.commit();
            done = true;
            return result;
        } finally {
            if (!done) {
                try {
                    c.rollback();
                } catch (SQLException e) {
                    // the connection is broken; the caller discards it
                }
            }
            c.setAutoCommit(true);
        }
    }
}
