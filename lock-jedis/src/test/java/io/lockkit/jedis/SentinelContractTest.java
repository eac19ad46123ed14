package io.lockkit.jedis;

import io.lockkit.jedis.topology.RedisSentinelSetup;
import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/**
 * The contract against a Sentinel-monitored master with one replica, started for this class: Redis 7
 * from the PATH, else the embedded 6.2 ({@code -Dlockkit.topology.sources=EMBEDDED} forces it).
 * Every provider gets its own {@code RedisSentinelClient}.
 */
@DisplayName("JedisLockProvider on Redis Sentinel (a master, a replica, one Sentinel)")
class SentinelContractTest extends LockContractTest {

    private static RedisSentinelSetup sentinel;

    @BeforeAll
    static void startSentinel() {
        sentinel = RedisSentinelSetup.start();
    }

    @AfterAll
    static void stopSentinel() {
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Override
    protected LockProvider newProvider() {
        return ClusterContractTest.closingClientToo(sentinel.newClient());
    }
}
