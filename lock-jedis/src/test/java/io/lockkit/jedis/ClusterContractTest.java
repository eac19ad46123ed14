package io.lockkit.jedis;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract against a 3-master Redis Cluster without replicas, started for this class. */
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JedisLockProvider on a 3-master Redis Cluster")
@ExtendWith(RedisContracts.Cluster.class)
class ClusterContractTest extends LockContractTest {
    ClusterContractTest(ContractBackend redis) {
        super(redis);
    }
}
