package io.lockkit.jedis;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/** The contract against standalone Redis 7 from the PATH ({@code .ci/run} installs it). */
@DisplayName("JedisLockProvider on standalone Redis 7 (redis-server on the PATH)")
class Redis7ContractTest extends StandaloneRedisContract {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        RedisFixture fixture = RedisFixture.builder().sources(Source.PATH).build();
        try {
            redis = fixture.start();
        } catch (RuntimeException e) {
            assumeTrue(false, "no redis-server on the PATH: " + e.getMessage());
        }
        assumeTrue(redis.version().compareTo("7") >= 0, "redis-server on the PATH is " + redis.version() + ", not 7");
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    RedisServer redis() {
        return redis;
    }
}
