package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("quarkus.lockkit.jdbc.datasource naming no datasource fails the start naming the key and the name")
class JdbcUnknownDataSourceTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.lockkit.provider", "jdbc")
            .overrideConfigKey("quarkus.lockkit.jdbc.datasource", "lcoks")
            .overrideConfigKey("quarkus.datasource.db-kind", "h2")
            .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:h2:mem:unknown;DB_CLOSE_DELAY=-1")
            .overrideConfigKey("quarkus.datasource.locks.db-kind", "h2")
            .overrideConfigKey("quarkus.datasource.locks.jdbc.url", "jdbc:h2:mem:unknown-locks;DB_CLOSE_DELAY=-1")
            .assertException(failure -> {
                Throwable cause = failure;
                while (cause != null && !(cause instanceof IllegalStateException)) {
                    cause = cause.getCause();
                }
                assertThat(cause)
                        .as("an IllegalStateException in %s", failure)
                        .isNotNull()
                        .hasMessageContaining("quarkus.lockkit.jdbc.datasource = 'lcoks'")
                        .hasMessageContaining("\"locks\"")
                        .hasMessageContaining("<default>");
            });

    @Test
    @DisplayName("the application never starts")
    void startFails() {
        throw new AssertionError("the start must fail");
    }
}
