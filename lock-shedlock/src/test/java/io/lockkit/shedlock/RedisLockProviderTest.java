package io.lockkit.shedlock;

import io.lockkit.DistributedLockFactory;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("LockkitLockProvider (ShedLock) on Redis")
class RedisLockProviderTest extends LockProviderBehaviour {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final RedisServer redis;

    RedisLockProviderTest(RedisServer redis) {
        this.redis = redis;
    }

    @Override
    DistributedLockFactory newFactory() {
        return DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
    }
}
