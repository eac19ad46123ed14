package io.lockkit.spring.integration;

import io.lockkit.DistributedLockFactory;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("LockkitLockRegistry on Redis")
class RedisLockRegistryTest extends LockRegistryBehaviour {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final RedisServer redis;

    RedisLockRegistryTest(RedisServer redis) {
        this.redis = redis;
    }

    @Override
    DistributedLockFactory newFactory() {
        return DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
    }
}
