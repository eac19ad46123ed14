package io.lockkit.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code @ExtendWith(RedisExtension.class)} gives the class one server, injected wherever it is asked for. */
@ExtendWith(RedisExtension.class)
class RedisExtensionTest {

    private static RedisServer fromBeforeAll;
    private final RedisServer fromConstructor;

    RedisExtensionTest(RedisServer server) {
        this.fromConstructor = server;
    }

    @BeforeAll
    static void remember(RedisServer server) {
        fromBeforeAll = server;
    }

    @Test
    void serverIsInjectedIntoTestMethodsAndRunning(RedisServer server) {
        assertThat(server.isRunning()).isTrue();
        assertThat(server.command("PING")).isEqualTo("PONG");
    }

    @Test
    void theSameServerIsSharedByConstructorBeforeAllAndTests(RedisServer server) {
        assertThat(server).isSameAs(fromConstructor).isSameAs(fromBeforeAll);
    }

    @Nested
    class NestedTests {

        @Test
        void nestedClassesShareTheOuterServer(RedisServer server) {
            assertThat(server).isSameAs(fromBeforeAll);
        }
    }
}
