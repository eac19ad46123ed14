package io.lockkit.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.redis.launcher.RedisLauncher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lifecycle contract against {@code redis-server} on the PATH, skipped when there is none. */
class PathServerLifecycleTest extends ServerLifecycleContract {

    @BeforeAll
    static void requireRedisOnPath() {
        assumeTrue(RedisLauncher.onPath(System.getenv("PATH")).isPresent(), "no redis-server on the PATH");
    }

    @Override
    RedisFixture.Builder fixtureBuilder() {
        return RedisFixture.builder().sources(Source.PATH);
    }

    @Test
    void serversComeFromThePath() {
        try (RedisServer server = fixtureBuilder().build().start()) {
            assertThat(server.source()).isEqualTo(Source.PATH);
        }
    }
}
