package io.lockkit.jdbc.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The lock table on PostgreSQL: every operation is one statement (see
 * {@code postgresql/statements.sql} for what each does and why). Thread-safe.
 */
public final class PostgresLockTable extends LockTable {

    /** The first key of the acquisitions' advisory gate: one namespace per lock table. */
    private final int gateNamespace;

    /** How long a waiter has to claim a lock handed to it. */
    private final long claimMicros;

    /** This provider's id in its hand-over notifications, so that it skips those it acted on already. */
    private final String origin;

    public PostgresLockTable(Map<String, String> placeholders, int queryTimeoutSeconds, long claimMicros, String origin) {
        super(SqlFile.statements("/io/lockkit/jdbc/postgresql/statements.sql", placeholders), queryTimeoutSeconds);
        this.gateNamespace = ("lockkit:" + placeholders.get("table")).hashCode();
        this.claimMicros = claimMicros;
        this.origin = origin;
    }

    @Override
    public Attempt acquire(Connection c, Ask ask) throws SQLException {
        try (PreparedStatement ps = prepare(c, "acquire")) {
            String key = ask.key();
            ps.setInt(1, gateNamespace);
            ps.setString(2, key);
            ps.setString(3, key);
            ps.setString(4, ask.name());
            ps.setString(5, ask.owner());
            ps.setLong(6, ask.leaseMicros());
            ps.setString(7, key);
            ps.setString(8, ask.owner());
            ps.setString(9, key);
            ps.setString(10, ask.owner());
            ps.setLong(11, ask.maxWaitMicros());
            ps.setString(12, key);
            ps.setLong(13, claimMicros);
            ps.setBoolean(14, ask.waiting());
            ps.setString(15, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return new Attempt(false, 0, -1);
                }
                long token = rs.getLong(1);
                if (!rs.wasNull()) {
                    return new Attempt(true, token, 0);
                }
                return new Attempt(false, 0, Math.max(0, rs.getLong(2)));
            }
        }
    }

    @Override
    public Released release(Connection c, String key, String owner, String channel) throws SQLException {
        try (PreparedStatement ps = prepare(c, "release")) {
            int i = 0;
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setLong(++i, claimMicros);
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setString(++i, key);
            ps.setString(++i, channel);
            ps.setString(++i, key);
            ps.setString(++i, origin);
            ps.setString(++i, channel);
            ps.setString(++i, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Released(rs.getInt(1), rs.getString(2)) : new Released(NOT_HELD, null);
            }
        }
    }

    @Override
    public void abandon(Connection c, String key, String owner, String channel) throws SQLException {
        try (PreparedStatement ps = prepare(c, "abandon")) {
            int i = 0;
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setLong(++i, claimMicros);
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setString(++i, key);
            ps.setString(++i, owner);
            ps.setString(++i, key);
            ps.setString(++i, channel);
            ps.setString(++i, key);
            ps.setString(++i, channel);
            ps.setString(++i, key);
            ps.executeQuery().close();
        }
    }

    @Override
    public boolean queues() {
        return true;
    }

    @Override
    public boolean[] renew(Connection c, List<Hold> holds) throws SQLException {
        String[] keys = new String[holds.size()];
        String[] owners = new String[holds.size()];
        Long[] leases = new Long[holds.size()];
        for (int i = 0; i < holds.size(); i++) {
            keys[i] = holds.get(i).key();
            owners[i] = holds.get(i).owner();
            leases[i] = holds.get(i).leaseMicros();
        }
        Set<String> renewed = new HashSet<>();
        try (PreparedStatement ps = prepare(c, "renew")) {
            Array k = c.createArrayOf("text", keys);
            Array o = c.createArrayOf("text", owners);
            Array l = c.createArrayOf("bigint", leases);
            ps.setArray(1, k);
            ps.setArray(2, o);
            ps.setArray(3, l);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    renewed.add(rs.getString(1) + '\0' + rs.getString(2));
                }
            }
        }
        boolean[] out = new boolean[holds.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = renewed.contains(keys[i] + '\0' + owners[i]);
        }
        return out;
    }

    @Override
    public int forceRelease(Connection c, String key, String channel) throws SQLException {
        try (PreparedStatement ps = prepare(c, "forceRelease")) {
            ps.setString(1, key);
            ps.setString(2, channel);
            ps.setString(3, key);
            try (ResultSet rs = ps.executeQuery()) {
                return !rs.next() ? -1 : rs.getBoolean(1) ? 1 : 0;
            }
        }
    }

    @Override
    public Optional<Held> inspect(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = prepare(c, "inspect")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new Held(rs.getString(1), rs.getInt(2), rs.getLong(3))) : Optional.empty();
            }
        }
    }

    @Override
    public boolean notifies() {
        return true;
    }
}
