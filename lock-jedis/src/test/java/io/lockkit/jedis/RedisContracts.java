package io.lockkit.jedis;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.jedis.topology.RedisCluster;
import io.lockkit.jedis.topology.RedisSentinelSetup;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.ServerExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis deployments lock-jedis runs the kit against, each an extension that starts its servers
 * for a test class and injects the kit's {@link ContractBackend} over them (a contract test is then
 * {@code @ExtendWith(RedisContracts.Embedded.class)} and a constructor).
 */
final class RedisContracts {

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
            super(RedisCluster.class, RedisCluster::start, cluster -> () -> closingClientToo(cluster.newClient()));
        }
    }

    /**
     * A Sentinel-monitored master with one replica and one Sentinel: Redis 7 from the PATH, else the
     * embedded 6.2 ({@code -Dlockkit.topology.sources=EMBEDDED} forces it). Every provider gets its own
     * {@code RedisSentinelClient}.
     */
    static final class Sentinel extends ServerExtension<RedisSentinelSetup> {
        Sentinel() {
            super(
                    RedisSentinelSetup.class,
                    RedisSentinelSetup::start,
                    sentinel -> () -> closingClientToo(sentinel.newClient()));
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
        };
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
