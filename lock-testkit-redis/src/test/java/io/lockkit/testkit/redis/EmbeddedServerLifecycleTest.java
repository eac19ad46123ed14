package io.lockkit.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The lifecycle contract against the Redis 6.2 binary bundled in embedded-redis. */
class EmbeddedServerLifecycleTest extends ServerLifecycleContract {

    @Override
    RedisFixture.Builder fixtureBuilder() {
        return RedisFixture.builder().sources(Source.EMBEDDED);
    }

    @Test
    void serversComeFromTheEmbeddedBinary() {
        try (RedisServer server = fixtureBuilder().build().start()) {
            assertThat(server.source()).isEqualTo(Source.EMBEDDED);
        }
    }
}
