package io.lockkit.jedis;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract against a Sentinel-monitored master with one replica, started for this class. */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JedisLockProvider on Redis Sentinel (a master, a replica, one Sentinel)")
@ExtendWith(RedisContracts.Sentinel.class)
class SentinelContractTest extends LockContractTest {
    SentinelContractTest(ContractBackend redis) {
        super(redis);
    }
}
