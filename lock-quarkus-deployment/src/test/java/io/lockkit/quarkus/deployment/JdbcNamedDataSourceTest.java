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

@DisplayName("quarkus.lockkit.jdbc.datasource: the lock table is in the named Agroal datasource (H2)")
class JdbcNamedDataSourceTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class, LockTables.class))
            .overrideConfigKey("quarkus.lockkit.provider", "jdbc")
            .overrideConfigKey("quarkus.lockkit.jdbc.datasource", "locks")
            .overrideConfigKey("quarkus.lockkit.jdbc.create-schema", "true")
            .overrideConfigKey("quarkus.datasource.db-kind", "h2")
            .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:h2:mem:app;DB_CLOSE_DELAY=-1")
            .overrideConfigKey("quarkus.datasource.locks.db-kind", "h2")
            .overrideConfigKey("quarkus.datasource.locks.jdbc.url", "jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1");

    @Inject
    DistributedLockFactory locks;

    @Inject
    AgroalDataSource application;

    @Inject
    @io.quarkus.agroal.DataSource("locks")
    AgroalDataSource named;

    @Test
    @DisplayName("a held lock is a row in the named datasource's table; the default datasource has no lock table")
    void lockRowInTheNamedDataSource() throws Exception {
        try (LockHandle held = locks.acquire("order:1")) {
            assertThat(held.fencingToken()).isPositive();
            assertThat(LockTables.rows(named))
                    .as("rows of the lock table in \"locks\"")
                    .isEqualTo(1);
        }
        assertThat(LockTables.tables(application))
                .as("the default datasource's tables")
                .doesNotContain("LOCKKIT_LOCKS");
    }
}
