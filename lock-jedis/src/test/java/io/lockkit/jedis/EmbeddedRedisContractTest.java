package io.lockkit.jedis;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract against standalone Redis 6.2, the binary bundled with embedded-redis. */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JedisLockProvider on standalone Redis 6.2 (embedded binary)")
@ExtendWith(RedisContracts.Embedded.class)
class EmbeddedRedisContractTest extends LockContractTest {
    EmbeddedRedisContractTest(ContractBackend redis) {
        super(redis);
    }
}
