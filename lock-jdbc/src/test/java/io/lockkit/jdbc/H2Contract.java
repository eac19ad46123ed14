package io.lockkit.jdbc;

import io.lockkit.testkit.BackendControl;
import io.lockkit.testkit.FreePorts;
import io.lockkit.testkit.ServerExtension;
import io.lockkit.testkit.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.h2.tools.Server;

/**
 * H2 2.x in memory, reached over its TCP server (so that the kit's clients are network clients, and
 * an outage is the TCP server going away), with lockkit's table; injects the kit's
 * {@link JdbcContractBackend} over it, whose start without holds deletes them.
 */
final class H2Contract extends ServerExtension<H2Contract.H2> {

    /** The in-memory database and its TCP server, which stops and starts while the database lives on. */
    static final class H2 implements TestServer {

        private static final String MEMORY = "jdbc:h2:mem:lockkit_contract";

        private final int port = FreePorts.freePort();
        /** Keeps the in-memory database alive while the TCP server is stopped. */
        private final Connection keeper;

        private Server server;

        H2() throws SQLException {
            keeper = DriverManager.getConnection(MEMORY + ";DB_CLOSE_DELAY=-1", "sa", "");
            start();
        }

        String jdbcUrl() {
            return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:lockkit_contract;USER=sa;PASSWORD=";
        }

        /** A connection inside this JVM, which works while the TCP server is stopped. */
        Connection connect() throws SQLException {
            return DriverManager.getConnection(MEMORY, "sa", "");
        }

        synchronized void start() {
            try {
                server = Server.createTcpServer("-tcpPort", Integer.toString(port))
                        .start();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        synchronized void stop() {
            if (server != null) {
                server.stop();
                server = null;
            }
        }

        void forgetHolds() {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                s.execute(JdbcContractBackend.FORGET_HOLDS);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            stop();
            try {
                keeper.close();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    H2Contract() {
        super(
                H2.class,
                H2Contract::start,
                h2 -> new JdbcContractBackend(
                        h2.jdbcUrl(),
                        h2::connect,
                        Optional.of(BackendControl.of(h2::stop, h2::start, h2::forgetHolds))));
    }

    private static H2 start() {
        H2 h2;
        try {
            h2 = new H2();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        try {
            JdbcContractBackend.createTable(h2.jdbcUrl());
        } catch (RuntimeException e) {
            h2.close();
            throw e;
        }
        return h2;
    }
}
