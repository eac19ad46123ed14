package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.cdi.internal.LockFactoryHolder;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.inject.se.SeContainer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
        Lockkit.useRedis(
                redis,
                "lockkit.redis.key-prefix",
                "shop",
                "lockkit.watchdog-lease",
                "3s",
                "lockkit.redis.timeout",
                "PT0.5S",
                "lockkit.redis.connect-timeout",
                "1s",
                "lockkit.redis.max-connections",
                "4",
                "lockkit.redis.client-name",
                "shop-app");
        SeContainer app = Lockkit.start("config-redis", LockUser.class);
        try (LockHandle hold = app.select(DistributedLockFactory.class).get().acquire("stock:1")) {
            assertThat(hold.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3));
            @SuppressWarnings("unchecked")
            List<String> keys = (List<String>) redis.command("KEYS", "*stock:1*");
            assertThat(keys).isNotEmpty().allSatisfy(key -> assertThat(key).startsWith("shop"));
            assertThat((String) redis.command("CLIENT", "LIST")).contains("name=shop-app");
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("lockkit.client-id is the factory's client id, which inspect shows as the holder's client")
    void clientIdComesFromConfig() throws Exception {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.client-id", "shop-7d9f8c-x2k4p"));
        SeContainer app = Lockkit.start("config-client-id", LockUser.class);
        try {
            DistributedLockFactory locks =
                    app.select(DistributedLockFactory.class).get();
            assertThat(locks.clientId()).isEqualTo("shop-7d9f8c-x2k4p");
            try (LockHandle hold = locks.acquire("client:1")) {
                assertThat(locks.operations().inspect("client:1"))
                        .get()
                        .extracting(LockInfo::clientId)
                        .isEqualTo("shop-7d9f8c-x2k4p");
            }
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("a lockkit.client-id that owner ids cannot carry fails the start, naming the key, its value and why")
    void badClientIdFailsTheStart() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.client-id", "shop 1:a"));
        assertThatThrownBy(() ->
                        Lockkit.start("config-bad-client-id", LockUser.class).close())
                .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .contains("lockkit.client-id = 'shop 1:a' (from MicroProfile Config)")
                                .contains("clientId may hold only")));
    }

    @Test
    @DisplayName("lockkit.provider=local needs no Redis")
    void localProviderNeedsNoRedis() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.redis.uri", "redis://127.0.0.1:1"));
        SeContainer app = Lockkit.start("config-local", LockUser.class);
        try {
            LockUser user = app.select(LockUser.class).get();
            assertThat(user.locked("u1").name()).isEqualTo("user:u1");
            assertThat(user.locks().tryAcquire("user:u1")).isPresent().get().satisfies(LockHandle::close);
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName(
            "shutting the application down closes the factory, frees what it held after the drain time and tells the holder")
    void shutdownClosesTheFactory(RedisServer redis) throws Exception {
        Lockkit.useRedis(redis, "lockkit.drain-timeout", "200ms");
        SeContainer app = Lockkit.start("config-shutdown", LockUser.class);
        DistributedLockFactory own = app.select(LockFactoryHolder.class).get().own();
        LockHandle leftBehind = own.acquire("left-behind");
        app.close();
        assertThat(leftBehind.lost())
                .as("its holder is told, after the drain time")
                .isCompleted();
        assertThatThrownBy(() -> own.tryAcquire("other"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        try (DistributedLockFactory elsewhere = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()))) {
            Optional<LockHandle> free = elsewhere.tryAcquire("left-behind");
            assertThat(free).as("released at shutdown, not left to expire").isPresent();
            free.get().close();
        }
    }
}
