package io.lockkit.jdbc;

import io.lockkit.jdbc.internal.Keys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The kit's hook for hold counts past 16 bits on a lock table: the count written into the lock's
 * row with one UPDATE. 32,767 reentrant acquisitions, one statement each, took 19 s on PostgreSQL
 * from four threads (42 s from one) on a shared two-core machine, too long for every build; the
 * kit's test then takes the stored count past 2^15 and back with the provider's own acquire and
 * release, which is where a count kept in 16 bits breaks.
 */
final class HoldCountRows {

    private HoldCountRows() {}

    static void set(Connection c, String name, String owner, int count) {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE " + JdbcLockProvider.DEFAULT_TABLE + " SET hold_count = ? WHERE lock_key = ? AND owner = ?")) {
            ps.setInt(1, count);
            ps.setString(2, Keys.of(name));
            ps.setString(3, owner);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("no row of " + owner + " for lock " + name);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
