package io.lockkit.testkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code @ExtendWith(PostgresExtension.class)} gives the class one server, injected wherever it is asked for. */
@ExtendWith(PostgresExtension.class)
class PostgresExtensionTest {

    private static PostgresServer fromBeforeAll;
    private final PostgresServer fromConstructor;

    PostgresExtensionTest(PostgresServer server) {
        this.fromConstructor = server;
    }

    @BeforeAll
    static void remember(PostgresServer server) {
        fromBeforeAll = server;
    }

    @Test
    void serverIsInjectedIntoTestMethodsAndAnswers(PostgresServer server) {
        assertThat(server.isRunning()).isTrue();
        assertThat(server.query("SELECT 41 + 1")).isEqualTo(42);
    }

    @Test
    void theSameServerIsSharedByConstructorBeforeAllAndTests(PostgresServer server) {
        assertThat(server).isSameAs(fromConstructor).isSameAs(fromBeforeAll);
    }

    @Nested
    class NestedTests {

        @Test
        void nestedClassesShareTheOuterServer(PostgresServer server) {
            assertThat(server).isSameAs(fromBeforeAll);
        }
    }
}
