package io.lockkit.cdi;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.cdi.internal.LockFactoryHolder;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("the DistributedLockFactory bean built from MicroProfile Config")
class ProducerConfigTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @AfterEach
    void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("Redis URI, key prefix, timeouts and watchdog lease come from lockkit.* keys")
    void redisSettingsComeFromConfig(RedisServer redis) throws Exception {
        Lockkit.useRedis(redis, "lockkit.redis.key-prefix", "shop", "lockkit.watchdog-lease", "3s",
                "lockkit.redis.timeout", "PT0.5S", "lockkit.redis.connect-timeout", "1s",
                "lockkit.redis.max-connections", "4", "lockkit.redis.client-name", "shop-app");
        WeldContainer app = Lockkit.start("config-redis", LockUser.class);
        try (LockHandle hold = app.select(DistributedLockFactory.class).get().acquire("stock:1")) {
            assertThat(hold.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3));
            @SuppressWarnings("unchecked")
            List<String> keys = (List<String>) redis.command("KEYS", "*stock:1*");
            assertThat(keys).isNotEmpty().allSatisfy(key -> assertThat(key).startsWith("shop"));
            assertThat((String) redis.command("CLIENT", "LIST")).contains("name=shop-app");
        } finally {
            app.shutdown();
        }
    }

    @Test
    @DisplayName("lockkit.provider=local needs no Redis")
    void localProviderNeedsNoRedis() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.redis.uri", "redis://127.0.0.1:1"));
        WeldContainer app = Lockkit.start("config-local", LockUser.class);
        try {
            LockUser user = app.select(LockUser.class).get();
            assertThat(user.locked("u1").name()).isEqualTo("user:u1");
            assertThat(user.locks().tryAcquire("user:u1")).isPresent().get().satisfies(LockHandle::close);
        } finally {
            app.shutdown();
        }
    }

    @Test
    @DisplayName("a malformed value fails the first use with a message naming the key and its source")
    void badValueNamesTheKey(RedisServer redis) {
        Lockkit.useRedis(redis, "lockkit.redis.timeout", "soon");
        WeldContainer app = Lockkit.start("config-bad", LockUser.class);
        try {
            assertThatThrownBy(() -> app.select(LockUser.class).get().locked("u1"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.timeout = 'soon' (from MicroProfile Config)");
        } finally {
            app.shutdown();
        }
        Lockkit.useConfig(Map.of("lockkit.provider", "zookeeper"));
        WeldContainer other = Lockkit.start("config-provider", LockUser.class);
        try {
            assertThatThrownBy(() -> other.select(DistributedLockFactory.class).get().tryAcquire("x"))
                    .hasMessageContaining("lockkit.provider = 'zookeeper'")
                    .hasMessageContaining("expected redis or local");
        } finally {
            other.shutdown();
        }
    }

    @Test
    @DisplayName("shutting the application down closes the factory and frees what it held")
    void shutdownClosesTheFactory(RedisServer redis) throws Exception {
        Lockkit.useRedis(redis);
        WeldContainer app = Lockkit.start("config-shutdown", LockUser.class);
        DistributedLockFactory own = app.select(LockFactoryHolder.class).get().own();
        own.acquire("left-behind");
        app.shutdown();
        assertThatThrownBy(() -> own.tryAcquire("other")).isInstanceOf(LockException.class).hasMessageContaining("closed");
        try (DistributedLockFactory elsewhere = JedisLockProvider.create(redis.uri()).newFactory()) {
            Optional<LockHandle> free = elsewhere.tryAcquire("left-behind");
            assertThat(free).as("released at shutdown, not left to expire").isPresent();
            free.get().close();
        }
    }
}
