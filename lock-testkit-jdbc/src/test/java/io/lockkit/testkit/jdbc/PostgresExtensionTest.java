package io.lockkit.testkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @ExtendWith(PostgresExtension.class)} injects a running PostgreSQL (how the server is shared
 * and stopped is the kit's ServerExtensionTest).
 */
@ExtendWith(PostgresExtension.class)
class PostgresExtensionTest {

    @Test
    void serverIsInjectedAndAnswers(PostgresServer server) {
        assertThat(server.isRunning()).isTrue();
        assertThat(server.query("SELECT 41 + 1")).isEqualTo(42);
    }
}
