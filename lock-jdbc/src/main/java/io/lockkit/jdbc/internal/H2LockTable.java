package io.lockkit.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The lock table on H2 2.x: acquisition, release and force release are each one short transaction
 * that locks the row first; renewal is one JDBC batch; inspection one query (see
 * {@code h2/statements.sql}). Thread-safe.
 */
public final class H2LockTable extends LockTable {

    public H2LockTable(Map<String, String> placeholders, int queryTimeoutSeconds) {
        super(SqlFile.statements("/io/lockkit/jdbc/h2/statements.sql", placeholders), queryTimeoutSeconds);
    }

    /** The locked row, or null. */
    private record Row(String owner, int holdCount, long token, long remainingMicros) {}

    @FunctionalInterface
    private interface Work<T> {
        T run() throws SQLException;
    }

    private <T> T inTransaction(Connection c, Work<T> work) throws SQLException {
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

    private @Nullable Row lockRow(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = prepare(c, "lockRow")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Row(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4)) : null;
            }
        }
    }

    private long nextToken(Connection c) throws SQLException {
        try (PreparedStatement ps = prepare(c, "nextToken")) {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    @Override
    public Attempt acquire(Connection c, Ask ask) throws SQLException {
        String key = ask.key();
        String name = ask.name();
        String owner = ask.owner();
        long leaseMicros = ask.leaseMicros();
        try {
            return inTransaction(c, () -> {
                Row row = lockRow(c, key);
                if (row == null) {
                    // The token is drawn after the insert has claimed the key: every client that
                    // held the name before drew its token earlier, every later one must wait for
                    // this transaction. (Drawn before the insert, a client that took and released
                    // the name in between would hold a higher token than this later hold.)
                    update(c, "insert", key, name, owner, leaseMicros);
                    long token = nextToken(c);
                    update(c, "setToken", token, key);
                    return new Attempt(true, token, 0);
                }
                if (row.remainingMicros() > 0) {
                    if (!row.owner().equals(owner)) {
                        return new Attempt(false, 0, row.remainingMicros());
                    }
                    update(c, "reenter", leaseMicros, key);
                    return new Attempt(true, row.token(), 0);
                }
                long token = Math.max(nextToken(c), row.token() + 1);
                update(c, "takeOver", name, owner, token, leaseMicros, key);
                return new Attempt(true, token, 0);
            });
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) {
                // Another client inserted the row between our look and our insert: it holds the lock now.
                return new Attempt(false, 0, -1);
            }
            throw e;
        }
    }

    @Override
    public Released release(Connection c, String key, String owner, String channel) throws SQLException {
        return new Released(
                inTransaction(c, () -> {
                    Row row = lockRow(c, key);
                    if (row == null || !row.owner().equals(owner)) {
                        return NOT_HELD;
                    }
                    if (row.remainingMicros() <= 0) {
                        update(c, "delete", key);
                        return LAPSED;
                    }
                    if (row.holdCount() > 1) {
                        update(c, "lower", key);
                        return row.holdCount() - 1;
                    }
                    update(c, "delete", key);
                    return RELEASED;
                }),
                null);
    }

    @Override
    public boolean[] renew(Connection c, List<Hold> holds) throws SQLException {
        int[] counts;
        try (PreparedStatement ps = prepare(c, "renew")) {
            for (Hold h : holds) {
                ps.setLong(1, h.leaseMicros());
                ps.setString(2, h.key());
                ps.setString(3, h.owner());
                ps.addBatch();
            }
            counts = ps.executeBatch();
        }
        boolean[] out = new boolean[holds.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = counts[i] > 0 || counts[i] == java.sql.Statement.SUCCESS_NO_INFO;
        }
        return out;
    }

    @Override
    public int forceRelease(Connection c, String key, String channel) throws SQLException {
        return inTransaction(c, () -> {
            Row row = lockRow(c, key);
            if (row == null) {
                return -1;
            }
            update(c, "delete", key);
            return row.remainingMicros() > 0 ? 1 : 0;
        });
    }

    @Override
    public Optional<Held> inspect(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = prepare(c, "inspect")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Held(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4), -1))
                        : Optional.empty();
            }
        }
    }

    @Override
    public List<Listed> list(Connection c, String prefix, String afterKey, int limit) throws SQLException {
        try (PreparedStatement ps = prepare(c, "list")) {
            ps.setString(1, afterKey);
            ps.setInt(2, prefix.length());
            ps.setString(3, prefix);
            ps.setInt(4, limit);
            try (ResultSet rs = ps.executeQuery()) {
                List<Listed> page = new ArrayList<>();
                while (rs.next()) {
                    page.add(new Listed(
                            rs.getString(1),
                            rs.getString(2),
                            new Held(rs.getString(3), rs.getInt(4), rs.getLong(5), rs.getLong(6), -1)));
                }
                return page;
            }
        }
    }

    @Override
    public boolean notifies() {
        return false;
    }
}
