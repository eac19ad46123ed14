package io.lockkit.jdbc;

import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.function.Function;

/**
 * Makes the PostgreSQL provider of a worker JVM ({@link io.lockkit.testkit.history.LeaderWorker},
 * {@link io.lockkit.testkit.history.PrimitiveWorker}) from a JDBC
 * URL, with a short statement timeout (public, for the worker to instantiate).
 */
public final class PostgresLeaderWorkers implements Function<String, LockProvider> {

    @Override
    public LockProvider apply(String jdbcUrl) {
        return JdbcLockProvider.builder()
                .jdbcUrl(jdbcUrl)
                .timeout(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(100))
                .build();
    }
}
