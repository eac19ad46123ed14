package io.lockkit.jedis;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/** The contract against standalone Redis 6.2, the binary bundled with embedded-redis. */
@DisplayName("JedisLockProvider on standalone Redis 6.2 (embedded binary)")
class EmbeddedRedisContractTest extends StandaloneRedisContract {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisFixture.builder().sources(Source.EMBEDDED).build().start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Override
    RedisServer redis() {
        return redis;
    }
}
