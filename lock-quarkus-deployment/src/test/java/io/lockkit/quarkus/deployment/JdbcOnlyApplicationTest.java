package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agroal.api.AgroalDataSource;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An application with lock-jdbc and without lock-jedis. This module's tests have lock-jedis (most of
 * their applications use Redis), so Quarkus removes it here as an application that never declared it
 * would not have it; {@link BuildClassPathTest} shows the extension itself does not bring it.
 */
@DisplayName("a JDBC-only application: no Jedis, no Redis Dev Services, and its locks work")
class JdbcOnlyApplicationTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(LockTables.class))
            .overrideConfigKey("quarkus.class-loading.removed-artifacts", "io.lockkit:lock-jedis,redis.clients:jedis")
            .overrideConfigKey("quarkus.lockkit.provider", "jdbc")
            .overrideConfigKey("quarkus.lockkit.jdbc.create-schema", "true")
            .overrideConfigKey("quarkus.datasource.db-kind", "h2")
            .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:h2:mem:jdbc-only;DB_CLOSE_DELAY=-1");

    @Inject
    DistributedLockFactory locks;

    @Inject
    AgroalDataSource application;

    @Test
    @DisplayName("neither Jedis nor lock-jedis can be loaded by the application")
    void noJedis() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        assertThatThrownBy(() -> Class.forName("redis.clients.jedis.Jedis", false, loader))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName(RedisProviderPresent.REDIS_PROVIDER, false, loader))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    @DisplayName("no Redis Dev Services: nothing names a Redis for lockkit")
    void noRedisDevServices() {
        assertThat(org.eclipse.microprofile.config.ConfigProvider.getConfig()
                        .getOptionalValue(DevServicesProcessor.URI_KEY, String.class))
                .isEmpty();
    }

    @Test
    @DisplayName("a lock is taken and released in the application's datasource")
    void jdbcLockWorks() throws Exception {
        try (LockHandle held = locks.acquire("report:jdbc-only")) {
            assertThat(held.fencingToken()).isPositive();
            assertThat(LockTables.rows(application)).isEqualTo(1);
        }
    }
}
