package io.lockkit.jdbc;

import io.lockkit.testkit.ContractBackend;
import io.lockkit.testkit.LockContractTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The unchanged contract on a real PostgreSQL, with release notifications through LISTEN/NOTIFY. */
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JdbcLockProvider on PostgreSQL")
@ExtendWith(PostgresContract.class)
class PostgresContractTest extends LockContractTest {
    PostgresContractTest(ContractBackend postgres) {
        super(postgres);
    }
}
