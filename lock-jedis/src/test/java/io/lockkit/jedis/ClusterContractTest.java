package io.lockkit.jedis;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract against a 3-master Redis Cluster without replicas, started for this class. */
@DisplayName("JedisLockProvider on a 3-master Redis Cluster")
@ExtendWith(RedisContracts.Cluster.class)
class ClusterContractTest extends LockContractTest {
    ClusterContractTest(ContractBackend redis) {
        super(redis);
    }
}
