package io.lockkit.jdbc;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.LockContractTest;
import io.lockkit.testkit.redis.RedisFixture;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/**
 * The unchanged contract on H2 2.x, reached over its TCP server (so that the kit's clients are
 * network clients, and an outage is the server going away); waiters of other clients poll.
 */
@DisplayName("JdbcLockProvider on H2")
class H2ContractTest extends LockContractTest {

    private static int port;
    private static Server server;
    /** Keeps the in-memory database alive while the TCP server is stopped. */
    private static Connection keeper;

    @BeforeAll
    static void startH2() throws SQLException {
        port = RedisFixture.freePort();
        keeper = DriverManager.getConnection("jdbc:h2:mem:lockkit_contract;DB_CLOSE_DELAY=-1", "sa", "");
        startServer();
        JdbcLockProvider.builder().jdbcUrl(url()).createSchema(true).build().close();
    }

    @AfterAll
    static void stopH2() throws SQLException {
        if (server != null) {
            server.stop();
        }
        if (keeper != null) {
            keeper.close();
        }
    }

    private static void startServer() {
        try {
            server = Server.createTcpServer("-tcpPort", Integer.toString(port)).start();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String url() {
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:lockkit_contract;USER=sa;PASSWORD=";
    }

    @Override
    protected LockProvider newProvider() {
        return JdbcLockProvider.create(url());
    }

    /** Writes the count into the lock's row (see {@link HoldCountRows}). */
    @Override
    protected void raiseHoldCount(LockProvider provider, String name, String owner, Duration lease, int count) {
        HoldCountRows.set(keeper, name, owner, count);
    }

    /** Stops and starts the TCP server; starting without the holds deletes them (see PostgresContractTest). */
    @Override
    protected Optional<BackendControl> backendControl() {
        return Optional.of(BackendControl.of(() -> server.stop(), H2ContractTest::startServer, () -> {
            try (Statement s = keeper.createStatement()) {
                s.execute("DELETE FROM " + JdbcLockProvider.DEFAULT_TABLE);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }));
    }
}
