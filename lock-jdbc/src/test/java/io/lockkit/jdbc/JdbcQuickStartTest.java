package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import org.junit.jupiter.api.Test;

/** The README's lock-jdbc snippet, which must compile and run (on H2 here). */
class JdbcQuickStartTest {

    @Test
    void theReadmeSnippetLocksAndUnlocks() throws Exception {
        String jdbcUrl = "jdbc:h2:mem:quickstart;DB_CLOSE_DELAY=-1";
        // readme:begin
        JdbcLockProvider provider = JdbcLockProvider.builder()
                .jdbcUrl(jdbcUrl) // or .dataSource(dataSource): the application's pool
                .createSchema(true) // or run the migrations shipped in the jar from Flyway/Liquibase
                .build();
        try (DistributedLockFactory locks =
                DistributedLockFactory.builder(provider).build()) {
            DistributedLock lock = locks.getLock("nightly-report");
            lock.lock();
            try {
                long token = lock.fencingToken(); // pass it to what the lock protects
                assertThat(token).isPositive();
            } finally {
                lock.unlock();
            }
        }
        // readme:end
    }
}
