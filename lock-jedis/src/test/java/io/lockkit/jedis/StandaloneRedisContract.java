package io.lockkit.jedis;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.LockContractTest;
import io.lockkit.testkit.redis.RedisServer;

/** The contract against one standalone Redis process that the test class started. */
abstract class StandaloneRedisContract extends LockContractTest {

    /** The server of the running test class. */
    abstract RedisServer redis();

    @Override
    protected LockProvider newProvider() {
        return JedisLockProvider.create(redis().uri());
    }

    @Override
    protected boolean canStopBackend() {
        return true;
    }

    @Override
    protected void stopBackend() {
        try {
            redis().command("SHUTDOWN", "NOSAVE");
        } catch (RuntimeException e) {
            // the server closes the connection instead of answering
        }
    }

    @Override
    protected void startBackend() {
        redis().restart();
    }
}
