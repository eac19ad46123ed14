package io.lockkit.jdbc;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The unchanged contract on a real MariaDB, with wake-ups from the provider's poller. */
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JdbcLockProvider on MariaDB")
@ExtendWith(MariaDbContract.class)
class MariaDbContractTest extends LockContractTest {
    MariaDbContractTest(ContractBackend mariaDb) {
        super(mariaDb);
    }
}
