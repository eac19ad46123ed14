package io.lockkit.jdbc;

import io.lockkit.jdbc.internal.Keys;
import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.ContractBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * The kit's backend over a database that has lockkit's table: a {@link JdbcLockProvider} per client,
 * the database fixture's outage control, and hold counts past 16 bits written into the lock's row
 * with one UPDATE. 32,767 reentrant acquisitions, one statement each, took 19 s on PostgreSQL from
 * four threads (42 s from one) on a shared two-core machine, too long for every build; the kit's test
 * then takes the stored count past 2^15 and back with the provider's own acquire and release, which
 * is where a count kept in 16 bits breaks.
 */
final class JdbcContractBackend implements ContractBackend {

    /**
     * What starting "without the holds" runs on a database that keeps its rows across a restart (all
     * of them but an in-memory H2), while the kit's restart test asks for a backend that forgot every
     * hold: deleting the rows plays that part, and checks on the way that tokens keep increasing
     * after the rows of the names are gone.
     */
    static final String FORGET_HOLDS = "DELETE FROM " + JdbcLockProvider.DEFAULT_TABLE;

    /** Opens a connection to the database under test, as its administrator. */
    interface Connections {
        Connection connect() throws SQLException;
    }

    private final String jdbcUrl;
    private final Connections connections;
    private final Optional<BackendControl> control;

    JdbcContractBackend(String jdbcUrl, Connections connections, Optional<BackendControl> control) {
        this.jdbcUrl = jdbcUrl;
        this.connections = connections;
        this.control = control;
    }

    /** Creates lockkit's table in the database at {@code jdbcUrl} (the provider's own migrations). */
    static void createTable(String jdbcUrl) {
        JdbcLockProvider.builder().jdbcUrl(jdbcUrl).createSchema(true).build().close();
    }

    @Override
    public LockProvider newProvider() {
        return JdbcLockProvider.create(jdbcUrl);
    }

    @Override
    public Optional<BackendControl> backendControl() {
        return control;
    }

    /**
     * Raises the token counter, never lowering it: PostgreSQL's and H2's sequence, MariaDB's one-row
     * counter (each one for every name). PostgreSQL's setval makes the next nextval {@code next}; H2's
     * sequence restarts at it; MariaDB draws the greater of the counter plus one and its clock.
     */
    @Override
    public boolean writeTokenCounter(String name, long next) {
        String table = JdbcLockProvider.DEFAULT_TABLE;
        try (Connection c = connections.connect()) {
            if (jdbcUrl.startsWith("jdbc:postgresql:")) {
                try (PreparedStatement ps = c.prepareStatement("SELECT setval('" + table
                                + "_token_seq', GREATEST(?, s.last_value))" + " FROM " + table + "_token_seq s");
                        ResultSet rs = query(ps, next - 1)) {
                    rs.next();
                }
            } else if (jdbcUrl.startsWith("jdbc:h2:")) {
                long base;
                try (PreparedStatement ps = c.prepareStatement(
                                "SELECT BASE_VALUE FROM INFORMATION_SCHEMA.SEQUENCES WHERE SEQUENCE_NAME = UPPER(?)");
                        ResultSet rs = query(ps, table + "_token_seq")) {
                    rs.next();
                    base = rs.getLong(1);
                }
                if (base < next) {
                    try (Statement s = c.createStatement()) {
                        s.execute("ALTER SEQUENCE " + table + "_token_seq RESTART WITH " + next);
                    }
                }
            } else {
                try (PreparedStatement ps = c.prepareStatement(
                        "UPDATE " + table + "_tokens SET last_token = GREATEST(last_token, ?) WHERE id = 1")) {
                    ps.setLong(1, next - 1);
                    ps.executeUpdate();
                }
            }
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ResultSet query(PreparedStatement ps, Object parameter) throws SQLException {
        ps.setObject(1, parameter);
        return ps.executeQuery();
    }

    @Override
    public boolean writeHoldCount(String name, String owner, int count) {
        try (Connection c = connections.connect();
                PreparedStatement ps = c.prepareStatement("UPDATE " + JdbcLockProvider.DEFAULT_TABLE
                        + " SET hold_count = ? WHERE lock_key = ? AND owner = ?")) {
            ps.setInt(1, count);
            ps.setString(2, Keys.of(name));
            ps.setString(3, owner);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("no row of " + owner + " for lock " + name);
            }
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
