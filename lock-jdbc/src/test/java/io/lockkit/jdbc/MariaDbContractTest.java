package io.lockkit.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.LockContractTest;
import io.lockkit.testkit.jdbc.MariaDbFixture;
import io.lockkit.testkit.jdbc.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/**
 * The unchanged contract on a real MariaDB (the machine's mariadbd, one server per test JVM shared by
 * the classes, a database of this class's own), with wake-ups from the provider's poller. Skipped,
 * saying why, where no MariaDB can be started.
 */
@DisplayName("JdbcLockProvider on MariaDB")
class MariaDbContractTest extends LockContractTest {

    private static MariaDbServer db;
    private static String url;

    @BeforeAll
    static void startMariaDb() {
        assumeTrue(
                MariaDbFixture.unavailable().isEmpty(),
                () -> MariaDbFixture.unavailable().orElse(""));
        db = MariaDbFixture.shared();
        url = db.createDatabase("contract");
        JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build().close();
    }

    @Override
    protected LockProvider newProvider() {
        return JdbcLockProvider.create(url);
    }

    /** Writes the count into the lock's row (see {@link HoldCountRows}). */
    @Override
    protected void raiseHoldCount(LockProvider provider, String name, String owner, Duration lease, int count) {
        try (Connection c = db.connect(database())) {
            HoldCountRows.set(c, name, owner, count);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * MariaDB keeps its rows across a restart, while the kit's restart test asks for a backend that
     * forgot every hold: deleting the rows plays that part (as in PostgresContractTest).
     */
    @Override
    protected Optional<BackendControl> backendControl() {
        return db.backendControl(database(), "DELETE FROM " + JdbcLockProvider.DEFAULT_TABLE);
    }

    private static String database() {
        String path = url.substring(url.indexOf("//") + 2);
        return path.substring(path.indexOf('/') + 1, path.indexOf('?') < 0 ? path.length() : path.indexOf('?'));
    }
}
