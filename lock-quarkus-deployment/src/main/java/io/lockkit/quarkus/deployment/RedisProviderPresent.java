package io.lockkit.quarkus.deployment;

import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import java.util.function.BooleanSupplier;

/**
 * Whether the application has lockkit's Redis provider (lock-jedis), which the extension no longer
 * brings: the Redis build steps (Dev Services, the native-image hint for Jedis) run only then.
 */
final class RedisProviderPresent implements BooleanSupplier {

    /** lock-jedis' provider factory, by name: the deployment module does not depend on lock-jedis. */
    static final String REDIS_PROVIDER = "io.lockkit.jedis.JedisLockProviderFactory";

    @Override
    public boolean getAsBoolean() {
        return QuarkusClassLoader.isClassPresentAtRuntime(REDIS_PROVIDER);
    }
}
