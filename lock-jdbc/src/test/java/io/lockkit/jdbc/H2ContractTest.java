package io.lockkit.jdbc;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The unchanged contract on H2 2.x over its TCP server; waiters of other clients poll. */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JdbcLockProvider on H2")
@ExtendWith(H2Contract.class)
class H2ContractTest extends LockContractTest {
    H2ContractTest(ContractBackend h2) {
        super(h2);
    }
}
