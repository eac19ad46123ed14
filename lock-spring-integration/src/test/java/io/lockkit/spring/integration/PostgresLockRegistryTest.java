package io.lockkit.spring.integration;

import io.lockkit.DistributedLockFactory;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.testkit.jdbc.PostgresExtension;
import io.lockkit.testkit.jdbc.PostgresServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("LockkitLockRegistry on PostgreSQL")
class PostgresLockRegistryTest extends LockRegistryBehaviour {

    @RegisterExtension
    static final PostgresExtension POSTGRES = new PostgresExtension();

    private final PostgresServer postgres;

    PostgresLockRegistryTest(PostgresServer postgres) {
        this.postgres = postgres;
    }

    @BeforeAll
    static void createTable(PostgresServer postgres) {
        JdbcLockProvider.builder()
                .jdbcUrl(postgres.jdbcUrl())
                .createSchema(true)
                .build()
                .close();
    }

    @Override
    DistributedLockFactory newFactory() {
        return DistributedLockFactory.create(JdbcLockProvider.create(postgres.jdbcUrl()));
    }
}
