package io.lockkit.jedis.fault;

import io.lockkit.spi.LockProvider;
import java.util.function.Function;

/**
 * Makes the Redis provider of a worker JVM ({@link io.lockkit.testkit.history.LeaderWorker},
 * {@link io.lockkit.testkit.history.PrimitiveWorker}), with the fault
 * tests' short timeouts (public, for the worker to instantiate).
 */
public final class RedisLeaderWorkers implements Function<String, LockProvider> {

    @Override
    public LockProvider apply(String uri) {
        return Faults.provider(uri).build();
    }
}
