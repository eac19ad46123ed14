package io.lockkit.jedis;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.jedis.internal.Keys;
import io.lockkit.jedis.topology.RedisCluster;
import io.lockkit.jedis.topology.RedisSentinelSetup;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.ServerExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.util.Optional;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis deployments lock-jedis runs the kit against, each an extension that starts its servers
 * for a test class and injects the kit's {@link ContractBackend} over them (a contract test is then
 * {@code @ExtendWith(RedisContracts.Embedded.class)} and a constructor).
 */
final class RedisContracts {

    /** The lock hash's field that keeps the current (or last) fencing token: F_TOKEN of acquire.lua. */
    private static final String TOKEN_FIELD = "~t";

    private RedisContracts() {}

    /** Standalone Redis 6.2, the binary bundled with embedded-redis; the backend stops and starts it. */
    static final class Embedded extends ServerExtension<RedisServer> {
        Embedded() {
            super(
                    RedisServer.class,
                    () -> RedisFixture.builder()
                            .sources(Source.EMBEDDED)
                            .build()
                            .start(),
                    RedisContracts::standalone);
        }
    }

    /**
     * Standalone Redis 7 from the PATH ({@code .ci/run} installs it); the test class is skipped, saying
     * why, when the PATH has no redis-server or an older one.
     */
    static final class Redis7 extends ServerExtension<RedisServer> {
        Redis7() {
            super(RedisServer.class, Redis7::start, RedisContracts::standalone);
        }

        private static RedisServer start() {
            RedisServer redis;
            try {
                redis = RedisFixture.builder().sources(Source.PATH).build().start();
            } catch (RuntimeException e) {
                assumeTrue(false, "no redis-server on the PATH: " + e.getMessage());
                throw e;
            }
            if (redis.version().compareTo("7") < 0) {
                redis.close();
                assumeTrue(false, "redis-server on the PATH is " + redis.version() + ", not 7");
            }
            return redis;
        }
    }

    /**
     * A 3-master Redis Cluster without replicas: Redis 7 from the PATH, else the embedded 6.2
     * ({@code -Dlockkit.topology.sources=EMBEDDED} forces it). Every provider gets its own
     * {@code RedisClusterClient}.
     */
    static final class Cluster extends ServerExtension<RedisCluster> {
        Cluster() {
            super(RedisCluster.class, RedisCluster::start, cluster -> overClients(cluster::newClient));
        }
    }

    /**
     * A Sentinel-monitored master with one replica and one Sentinel: Redis 7 from the PATH, else the
     * embedded 6.2 ({@code -Dlockkit.topology.sources=EMBEDDED} forces it). Every provider gets its own
     * {@code RedisSentinelClient}.
     */
    static final class Sentinel extends ServerExtension<RedisSentinelSetup> {
        Sentinel() {
            super(RedisSentinelSetup.class, RedisSentinelSetup::start, sentinel -> overClients(sentinel::newClient));
        }
    }

    private static ContractBackend standalone(RedisServer redis) {
        return new ContractBackend() {
            @Override
            public LockProvider newProvider() {
                return JedisLockProvider.create(redis.uri());
            }

            @Override
            public Optional<BackendControl> backendControl() {
                return redis.backendControl();
            }

            @Override
            public boolean writeTokenCounter(String name, long next) {
                String key = lockKey(name);
                Object last = redis.command("HGET", key, TOKEN_FIELD);
                if (last == null || Long.parseLong(String.valueOf(last)) < next - 1) {
                    redis.command("HSET", key, TOKEN_FIELD, Long.toString(next - 1));
                }
                return true;
            }
        };
    }

    /** A backend whose every provider has a client of its own from {@code clients} (a cluster's, a Sentinel setup's). */
    private static ContractBackend overClients(Supplier<? extends UnifiedJedis> clients) {
        return new ContractBackend() {
            @Override
            public LockProvider newProvider() {
                return closingClientToo(clients.get());
            }

            @Override
            public boolean writeTokenCounter(String name, long next) {
                try (UnifiedJedis jedis = clients.get()) {
                    return RedisContracts.writeTokenCounter(jedis, name, next);
                }
            }
        };
    }

    /**
     * Raises a free lock's fencing counter: the token field of its hash, from which acquire.lua takes
     * the next token (the greater of it plus one and the server's clock in microseconds). A hash with
     * only that field is a free lock that keeps its last token.
     */
    static boolean writeTokenCounter(UnifiedJedis jedis, String name, long next) {
        String key = lockKey(name);
        String last = jedis.hget(key, TOKEN_FIELD);
        if (last == null || Long.parseLong(last) < next - 1) {
            jedis.hset(key, TOKEN_FIELD, Long.toString(next - 1));
        }
        return true;
    }

    /** The key of a lock's hash, with the provider's default key prefix. */
    private static String lockKey(String name) {
        return Keys.lock(new Keys(JedisLockProvider.DEFAULT_KEY_PREFIX).base(name));
    }

    /**
     * A provider over {@code client} whose close also closes the client: the provider leaves a client
     * it was given open, and the kit makes hundreds of providers per run.
     */
    static LockProvider closingClientToo(UnifiedJedis client) {
        return new ForwardingLockProvider(
                JedisLockProvider.builder().client(client).build()) {
            @Override
            public void close() {
                try {
                    super.close();
                } finally {
                    client.close();
                }
            }
        };
    }
}
