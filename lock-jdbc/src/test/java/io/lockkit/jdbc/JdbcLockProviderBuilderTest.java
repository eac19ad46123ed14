package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad options fail at the setter (or at build when they contradict) with the argument's name. */
class JdbcLockProviderBuilderTest {

    @Test
    void namesThatCouldCarrySqlAreRejected() {
        assertThatThrownBy(() -> JdbcLockProvider.builder().table("locks; DROP TABLE users"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("table ");
        assertThatThrownBy(() -> JdbcLockProvider.builder().table("\"quoted\"")).hasMessageStartingWith("table ");
        assertThatThrownBy(() -> JdbcLockProvider.builder().table("a".repeat(54)))
                .hasMessageStartingWith("table ");
        assertThatThrownBy(() -> JdbcLockProvider.builder().schema("public.x")).hasMessageStartingWith("schema ");
        assertThatThrownBy(() -> JdbcLockProvider.builder().schema(null)).hasMessageStartingWith("schema ");
    }

    @Test
    void timesAndSizesMustBeSensible() {
        assertThatThrownBy(() -> JdbcLockProvider.builder().timeout(Duration.ZERO))
                .hasMessageStartingWith("timeout ");
        assertThatThrownBy(() -> JdbcLockProvider.builder().timeout(null)).hasMessageStartingWith("timeout ");
        assertThatThrownBy(() -> JdbcLockProvider.builder().pollInterval(Duration.ofMillis(-1)))
                .hasMessageStartingWith("pollInterval ");
        assertThatThrownBy(() -> JdbcLockProvider.builder().maxConnections(0))
                .hasMessageStartingWith("maxConnections ");
    }

    @Test
    void exactlyOneConnectionSourceAndAKnownDatabase() {
        assertThatThrownBy(() -> JdbcLockProvider.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataSource and jdbcUrl");
        assertThatThrownBy(() -> JdbcLockProvider.builder().jdbcUrl("postgres://x"))
                .hasMessageStartingWith("jdbcUrl ");
        assertThatThrownBy(() -> JdbcLockProvider.builder()
                        .jdbcUrl("jdbc:oracle:thin:@x:1521/db")
                        .build())
                .hasMessageStartingWith("jdbcUrl ");
        assertThatThrownBy(() -> JdbcLockProvider.builder()
                        .jdbcUrl("jdbc:h2:mem:x;PASSWORD=secret")
                        .credentials("", "x"))
                .hasMessageStartingWith("user ");
    }

    @Test
    void aUrlNoDriverTakesFailsAtBuildNamingTheDriverToAdd() {
        // H2, PostgreSQL and MariaDB drivers are all on this class path: a scheme none takes, spoken
        // as PostgreSQL, stands for a missing driver (lock-cli's FailureMessagesTest has jdbc:mariadb:).
        assertThatThrownBy(() -> JdbcLockProvider.builder()
                        .jdbcUrl("jdbc:nosuchdb://127.0.0.1:1/app")
                        .dialect(JdbcDialect.POSTGRESQL)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no JDBC driver for jdbc:nosuchdb: on the class path; add the database's JDBC driver");
    }

    @Test
    void jdbcMysqlIsTakenByTheMariaDbDriverAsBefore() {
        // The MariaDB driver takes jdbc:mysql: only with permitMysqlScheme, which the provider sets:
        // the driver check must not refuse it. Building a provider on a URL opens no connection.
        JdbcLockProvider.builder()
                .jdbcUrl("jdbc:mysql://127.0.0.1:1/app")
                .build()
                .close();
    }
}
