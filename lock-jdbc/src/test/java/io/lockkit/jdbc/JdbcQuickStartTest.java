package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JDBC quick start of the README and docs/jdbc.md, compiled and run (on H2 here). */
class JdbcQuickStartTest {

    private final List<Long> tokens = new ArrayList<>();

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
                writeReport(lock.fencingToken()); // the report's store refuses older tokens
            } finally {
                lock.unlock();
            }
        }
        // readme:end
        assertThat(tokens).singleElement().satisfies(token -> assertThat(token).isPositive());
    }

    /** Stands for the protected resource, which stores the token and refuses older ones. */
    private void writeReport(long fencingToken) {
        tokens.add(fencingToken);
    }
}
