package io.lockkit.jdbc;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/** The unchanged contract on H2 2.x over its TCP server; waiters of other clients poll. */
@DisplayName("JdbcLockProvider on H2")
@ExtendWith(H2Contract.class)
class H2ContractTest extends LockContractTest {
    H2ContractTest(ContractBackend h2) {
        super(h2);
    }
}
