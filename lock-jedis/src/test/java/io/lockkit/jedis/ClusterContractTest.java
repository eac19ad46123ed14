package io.lockkit.jedis;

import io.lockkit.jedis.topology.RedisCluster;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import redis.clients.jedis.UnifiedJedis;

/**
 * The contract against a 3-master Redis Cluster without replicas, started for this class: Redis 7
 * from the PATH, else the embedded 6.2 ({@code -Dlockkit.topology.sources=EMBEDDED} forces it).
 * Every provider gets its own {@code RedisClusterClient}.
 */
@DisplayName("JedisLockProvider on a 3-master Redis Cluster")
class ClusterContractTest extends LockContractTest {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected LockProvider newProvider() {
        return closingClientToo(cluster.newClient());
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
