package io.lockkit.jedis;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.LockContractTest;
import io.lockkit.testkit.redis.RedisServer;
import java.util.Optional;

/** The contract against one standalone Redis process that the test class started. */
abstract class StandaloneRedisContract extends LockContractTest {

    /** The server of the running test class. */
    abstract RedisServer redis();

    @Override
    protected LockProvider newProvider() {
        return JedisLockProvider.create(redis().uri());
    }

    @Override
    protected Optional<BackendControl> backendControl() {
        return redis().backendControl();
    }
}
