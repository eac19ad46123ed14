package io.lockkit.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.testkit.ServerExtension;
import io.lockkit.testkit.TestServer;
import io.lockkit.testkit.jdbc.MariaDbFixture;
import io.lockkit.testkit.jdbc.MariaDbServer;

/**
 * A MariaDB database of the test class's own, with lockkit's table, on the machine's mariadbd (one
 * server per test JVM, shared by the classes); injects the kit's {@link JdbcContractBackend} over
 * it. The class is skipped, saying why, where no MariaDB can be started.
 */
final class MariaDbContract extends ServerExtension<MariaDbContract.Database> {

    /** A database on the JVM's shared MariaDB; closing it leaves the server to the other classes. */
    static final class Database implements TestServer {

        final MariaDbServer server;
        final String name;

        Database(MariaDbServer server, String name) {
            this.server = server;
            this.name = name;
        }

        String jdbcUrl() {
            return server.jdbcUrl(name);
        }

        @Override
        public void close() {
            // MariaDbFixture.shared() stops the server when the JVM exits.
        }
    }

    MariaDbContract() {
        super(
                Database.class,
                MariaDbContract::start,
                db -> new JdbcContractBackend(
                        db.jdbcUrl(),
                        () -> db.server.connect(db.name),
                        db.server.backendControl(db.name, JdbcContractBackend.FORGET_HOLDS)));
    }

    private static Database start() {
        assumeTrue(
                MariaDbFixture.unavailable().isEmpty(),
                () -> MariaDbFixture.unavailable().orElse(""));
        MariaDbServer server = MariaDbFixture.shared();
        String url = server.createDatabase("contract");
        String path = url.substring(url.indexOf("//") + 2);
        Database db = new Database(
                server,
                path.substring(path.indexOf('/') + 1, path.indexOf('?') < 0 ? path.length() : path.indexOf('?')));
        JdbcContractBackend.createTable(db.jdbcUrl());
        return db;
    }
}
