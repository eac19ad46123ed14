package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.testkit.jdbc.MariaDbFixture;
import io.lockkit.testkit.jdbc.MariaDbServer;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import liquibase.command.CommandScope;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The migrations in the jar, applied as docs/jdbc.md says, by Flyway (the dialect's migration folder
 * as a location, with a history table of lockkit's own) and by Liquibase (a change set with
 * {@code sqlFile}); then a provider with createSchema(true) finds the schema current (one statement,
 * no DDL) and locks.
 */
@DisplayName("The migrations from Flyway and Liquibase")
class MigrationToolsTest {

    private static PostgresServer pg;

    private static PostgresServer pg() {
        if (pg == null) {
            pg = PostgresFixture.builder().build().start();
        }
        return pg;
    }

    @AfterAll
    static void stopPostgres() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    @DisplayName("PostgreSQL: Flyway, own history table")
    void flywayOnPostgres() {
        pg().query("CREATE SCHEMA flyway_locks");
        String url = pg().jdbcUrl() + "&currentSchema=flyway_locks";
        Flyway.configure()
                .dataSource(url, null, null)
                .schemas("flyway_locks")
                .locations(
                        "classpath:" + JdbcDialect.POSTGRESQL.migrationFolder().substring(1))
                .table("lockkit_flyway_history")
                .baselineOnMigrate(true)
                .load()
                .migrate();
        lockAfterTheTool(url, JdbcDialect.POSTGRESQL);
    }

    @Test
    @DisplayName("PostgreSQL: Liquibase, sqlFile without splitting")
    void liquibaseOnPostgres() throws Exception {
        pg().query("CREATE SCHEMA liquibase_locks");
        String url = pg().jdbcUrl() + "&currentSchema=liquibase_locks";
        liquibase(url, "liquibase/lockkit-postgresql.xml");
        lockAfterTheTool(url, JdbcDialect.POSTGRESQL);
    }

    @Test
    @DisplayName("MariaDB: Flyway, own history table")
    void flywayOnMariaDb() {
        String url = mariaDb().createDatabase("flyway");
        Flyway.configure()
                .dataSource(url, null, null)
                .locations("classpath:" + JdbcDialect.MARIADB.migrationFolder().substring(1))
                .table("lockkit_flyway_history")
                .baselineOnMigrate(true)
                .load()
                .migrate();
        lockAfterTheTool(url, JdbcDialect.MARIADB);
    }

    @Test
    @DisplayName("MariaDB: Liquibase, sqlFile without splitting, on a connection that allows multi-statement queries")
    void liquibaseOnMariaDb() throws Exception {
        // Liquibase splits inside a procedure at its first END IF; unsplit, the server parses the
        // file itself, which the driver allows with allowMultiQueries.
        String url = mariaDb().createDatabase("liquibase");
        liquibase(url + "&allowMultiQueries=true", "liquibase/lockkit-mariadb.xml");
        lockAfterTheTool(url, JdbcDialect.MARIADB);
    }

    private static MariaDbServer mariaDb() {
        assumeTrue(
                MariaDbFixture.unavailable().isEmpty(),
                () -> MariaDbFixture.unavailable().orElse(""));
        return MariaDbFixture.shared();
    }

    private static void liquibase(String url, String changelog) throws Exception {
        try (Connection c = DriverManager.getConnection(url)) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
            new CommandScope("update")
                    .addArgumentValue("changelogFile", changelog)
                    .addArgumentValue("database", database)
                    .execute();
        }
    }

    private static void lockAfterTheTool(String url, JdbcDialect dialect) {
        StatementLog log = new StatementLog(url);
        try (JdbcLockProvider p = JdbcLockProvider.builder()
                .dataSource(log.dataSource())
                .dialect(dialect)
                .createSchema(true)
                .build()) {
            assertThat(log.executed())
                    .as("the schema the tool made is current")
                    .containsExactly("SELECT max(version) FROM lockkit_locks_version");
            assertThat(p.tryAcquire(new LockRequest(
                                    "migrated", "c:o", Duration.ofSeconds(30), Duration.ofSeconds(1), 1))
                            .isAcquired())
                    .isTrue();
            assertThat(p.release("migrated", "c:o").outcome()).isEqualTo(io.lockkit.spi.Release.Outcome.RELEASED);
        }
    }
}
