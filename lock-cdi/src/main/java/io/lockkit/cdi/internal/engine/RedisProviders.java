package io.lockkit.cdi.internal.engine;

import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.spi.LockProvider;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/** The only class touching lock-jedis (an optional dependency); loaded only for {@code lockkit.provider=redis}. */
public final class RedisProviders {

    public static final String DEFAULT_URI = "redis://localhost:6379";

    private RedisProviders() {}

    public static LockProvider create(LockkitConfig config, @Nullable ThreadFactory threadFactory) {
        JedisLockProvider.Builder b = JedisLockProvider.builder();
        set(
                config,
                LockkitConfig.REDIS_URI,
                () -> b.uri(config.string(LockkitConfig.REDIS_URI).orElse(DEFAULT_URI)));
        config.string(LockkitConfig.KEY_PREFIX)
                .ifPresent(v -> set(config, LockkitConfig.KEY_PREFIX, () -> b.keyPrefix(v)));
        config.string(LockkitConfig.CLIENT_NAME)
                .ifPresent(v -> set(config, LockkitConfig.CLIENT_NAME, () -> b.clientName(v)));
        config.duration(LockkitConfig.TIMEOUT).ifPresent(v -> set(config, LockkitConfig.TIMEOUT, () -> b.timeout(v)));
        config.duration(LockkitConfig.CONNECT_TIMEOUT)
                .or(() -> config.duration(LockkitConfig.TIMEOUT))
                .ifPresent(v -> set(config, LockkitConfig.CONNECT_TIMEOUT, () -> b.connectTimeout(v)));
        config.integer(LockkitConfig.MAX_CONNECTIONS)
                .ifPresent(v -> set(config, LockkitConfig.MAX_CONNECTIONS, () -> b.maxConnections(v)));
        if (threadFactory != null) {
            b.threadFactory(threadFactory);
        }
        return b.build();
    }

    /** Runs a builder setter, naming the configuration key when it rejects the value. */
    private static void set(LockkitConfig config, String key, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " (from " + config.origin() + "): " + e.getMessage(), e);
        }
    }
}
