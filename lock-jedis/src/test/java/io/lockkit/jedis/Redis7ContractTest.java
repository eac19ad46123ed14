package io.lockkit.jedis;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract against standalone Redis 7 from the PATH (skipped without one). */
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JedisLockProvider on standalone Redis 7 (redis-server on the PATH)")
@ExtendWith(RedisContracts.Redis7.class)
class Redis7ContractTest extends LockContractTest {
    Redis7ContractTest(ContractBackend redis) {
        super(redis);
    }
}
