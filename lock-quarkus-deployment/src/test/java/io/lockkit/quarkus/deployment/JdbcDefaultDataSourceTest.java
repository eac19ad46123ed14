package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.agroal.api.AgroalDataSource;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("quarkus.lockkit.provider=jdbc without a datasource name: the application's default datasource (H2)")
class JdbcDefaultDataSourceTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class, LockTables.class))
            .overrideConfigKey("quarkus.lockkit.provider", "jdbc")
            .overrideConfigKey("quarkus.lockkit.jdbc.create-schema", "true")
            .overrideConfigKey("quarkus.datasource.db-kind", "h2")
            .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:h2:mem:default-only;DB_CLOSE_DELAY=-1")
            .overrideConfigKey("quarkus.datasource.other.db-kind", "h2")
            .overrideConfigKey("quarkus.datasource.other.jdbc.url", "jdbc:h2:mem:other;DB_CLOSE_DELAY=-1");

    @Inject
    DistributedLockFactory locks;

    @Inject
    AgroalDataSource application;

    @Inject
    @io.quarkus.agroal.DataSource("other")
    AgroalDataSource other;

    @Test
    @DisplayName("a held lock is a row in the default datasource's table, none in the named one")
    void lockRowInTheDefaultDataSource() throws Exception {
        try (LockHandle held = locks.acquire("order:2")) {
            assertThat(held.fencingToken()).isPositive();
            assertThat(LockTables.rows(application)).isEqualTo(1);
        }
        assertThat(LockTables.tables(other)).doesNotContain("LOCKKIT_LOCKS");
    }
}
