package io.lockkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("each dialect names the Maven coordinates of the driver its URLs need")
class DriverCheckTest {

    private static final Dialect.Context CONTEXT = Dialect.Context.of(
            null, "lockkit_locks", Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(250));

    @Test
    @DisplayName("PostgreSQL, H2, MariaDB and MySQL URLs; none for a scheme the dialect does not know")
    void coordinates() {
        assertThat(new PostgresDialect(CONTEXT).driverArtifact("jdbc:postgresql://db/app"))
                .isEqualTo("org.postgresql:postgresql");
        assertThat(new PostgresDialect(CONTEXT).driverArtifact("jdbc:pgsql://db/app"))
                .isNull();
        assertThat(new H2Dialect(CONTEXT).driverArtifact("jdbc:h2:tcp://db/app"))
                .isEqualTo("com.h2database:h2");
        assertThat(new MariaDbDialect(CONTEXT).driverArtifact("jdbc:mariadb://db/app"))
                .isEqualTo("org.mariadb.jdbc:mariadb-java-client");
        assertThat(new MariaDbDialect(CONTEXT).driverArtifact("jdbc:mysql://db/app"))
                .contains("com.mysql:mysql-connector-j");
    }
}
