package io.lockkit.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @ExtendWith(RedisExtension.class)} injects a running Redis (how the server is shared and
 * stopped is the kit's ServerExtensionTest; RedisExtensionRegistrationTest registers it with options).
 */
@ExtendWith(RedisExtension.class)
class RedisExtensionTest {

    @Test
    void serverIsInjectedAndRunning(RedisServer server) {
        assertThat(server.isRunning()).isTrue();
        assertThat(server.command("PING")).isEqualTo("PONG");
    }
}
