package io.lockkit.benchmarks;

import io.lockkit.testkit.jdbc.MariaDbFixture;
import io.lockkit.testkit.jdbc.MariaDbServer;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.lockkit.testkit.jdbc.Source;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;

/**
 * A database for {@link JdbcBenchmarkMain}: the server (started here), the raw-SQL floor's two
 * statements in its dialect, and Spring's lock table for it. Closing it stops the server.
 */
abstract class JdbcDatabase implements AutoCloseable {

    /** The database's name in the report. */
    abstract String name();

    abstract String version();

    /** The JDBC URL of the benchmark's database. */
    abstract String url();

    /** The server's process, for pinning. */
    abstract OptionalLong pid();

    /** Runs one statement on a connection of its own. */
    abstract void sql(String statement);

    /** One INSERT (or upsert over an expired row) that answers whether it took the lock: name, owner. */
    abstract String floorAcquire();

    /** One DELETE of the owner's row: name, owner. */
    abstract String floorRelease();

    /** The floor's table. */
    abstract String floorTable();

    /** An empty routine that answers one row, as lockkit's do (the breakdown's yardstick). */
    abstract String noopRoutine();

    /** Calls {@link #noopRoutine()} as lockkit calls its own. */
    abstract String noopCall();

    /** Spring Integration's schema file for this database, in its jar. */
    abstract String springSchema();

    /** Extra JDBC URL parameters for the floor's pool (empty: none). */
    String floorUrlParameters() {
        return "";
    }

    @Override
    public abstract void close();

    /** Spring's {@code INT_LOCK} table, from its jar's schema file. */
    final String springLockTable() throws IOException {
        try (InputStream in = JdbcLockRegistry.class.getResourceAsStream(springSchema())) {
            if (in == null) {
                throw new IllegalStateException("no " + springSchema() + " in spring-integration-jdbc");
            }
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int from = sql.indexOf("CREATE TABLE INT_LOCK");
            return sql.substring(from, sql.indexOf(';', from));
        }
    }

    /** PostgreSQL from the embedded binaries. */
    static JdbcDatabase postgres() {
        PostgresServer pg =
                PostgresFixture.builder().sources(Source.EMBEDDED).build().start();
        return new JdbcDatabase() {
            @Override
            String name() {
                return "PostgreSQL";
            }

            @Override
            String version() {
                return pg.version();
            }

            @Override
            String url() {
                return pg.jdbcUrl();
            }

            @Override
            OptionalLong pid() {
                return pg.pid();
            }

            @Override
            void sql(String statement) {
                pg.query(statement);
            }

            @Override
            String floorTable() {
                return "CREATE TABLE floor_locks (name text PRIMARY KEY, owner text NOT NULL, expires timestamptz NOT NULL)";
            }

            @Override
            String floorAcquire() {
                return "INSERT INTO floor_locks AS l VALUES (?, ?, clock_timestamp() + interval '30 seconds')"
                        + " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires"
                        + " WHERE l.expires < clock_timestamp() RETURNING 1";
            }

            @Override
            String floorRelease() {
                return "DELETE FROM floor_locks WHERE name = ? AND owner = ?";
            }

            @Override
            String noopRoutine() {
                return "CREATE FUNCTION bench_noop(p_key TEXT, OUT o_token BIGINT) LANGUAGE plpgsql AS $$"
                        + " BEGIN o_token := 1; END $$";
            }

            @Override
            String noopCall() {
                return "SELECT o_token FROM bench_noop('k'::text)";
            }

            @Override
            String springSchema() {
                return "/org/springframework/integration/jdbc/schema-postgresql.sql";
            }

            @Override
            public void close() {
                pg.close();
            }
        };
    }

    /** MariaDB: the machine's mariadbd, started for the run. */
    static JdbcDatabase mariaDb() {
        MariaDbServer db = MariaDbFixture.start();
        String url = db.createDatabase("bench");
        String database = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
        return new JdbcDatabase() {
            @Override
            String name() {
                return "MariaDB";
            }

            @Override
            String version() {
                return db.version();
            }

            @Override
            String url() {
                return url;
            }

            @Override
            OptionalLong pid() {
                return db.pid();
            }

            @Override
            void sql(String statement) {
                db.query(database, statement);
            }

            @Override
            String floorTable() {
                return "CREATE TABLE floor_locks (name VARCHAR(200) PRIMARY KEY, owner VARCHAR(200) NOT NULL,"
                        + " expires DATETIME(6) NOT NULL) ENGINE = InnoDB";
            }

            @Override
            String floorAcquire() {
                // Affected rows (useAffectedRows on the floor's pool): 1 inserted, 2 taken over, 0 busy.
                return "INSERT INTO floor_locks VALUES (?, ?, UTC_TIMESTAMP(6) + INTERVAL 30 SECOND)"
                        + " ON DUPLICATE KEY UPDATE owner = IF(expires < UTC_TIMESTAMP(6), VALUES(owner), owner),"
                        + " expires = IF(expires < UTC_TIMESTAMP(6), VALUES(expires), expires)";
            }

            @Override
            String floorRelease() {
                return "DELETE FROM floor_locks WHERE name = ? AND owner = ?";
            }

            @Override
            String floorUrlParameters() {
                return "&useAffectedRows=true";
            }

            @Override
            String noopRoutine() {
                return "CREATE PROCEDURE bench_noop(IN p_key CHAR(64)) BEGIN SELECT 1 AS o_token; END";
            }

            @Override
            String noopCall() {
                return "CALL bench_noop('k')";
            }

            @Override
            String springSchema() {
                return "/org/springframework/integration/jdbc/schema-mysql.sql";
            }

            @Override
            public void close() {
                db.close();
            }
        };
    }
}
