package io.lockkit.jedis;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract against standalone Redis 6.2, the binary bundled with embedded-redis. */
@DisplayName("JedisLockProvider on standalone Redis 6.2 (embedded binary)")
@ExtendWith(RedisContracts.Embedded.class)
class EmbeddedRedisContractTest extends LockContractTest {
    EmbeddedRedisContractTest(ContractBackend redis) {
        super(redis);
    }
}
