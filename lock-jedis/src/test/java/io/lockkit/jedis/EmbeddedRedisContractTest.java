package io.lockkit.jedis;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against standalone Redis 6.2, the binary bundled with embedded-redis. */
@DisplayName("JedisLockProvider on standalone Redis 6.2 (embedded binary)")
class EmbeddedRedisContractTest extends StandaloneRedisContract {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.builder()
            .fixture(RedisFixture.builder().sources(Source.EMBEDDED).build())
            .build();

    @Override
    RedisServer redis() {
        return REDIS.server();
    }
}
