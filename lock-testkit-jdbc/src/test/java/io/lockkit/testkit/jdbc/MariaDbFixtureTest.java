package io.lockkit.testkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The MariaDB fixture on the machine's mariadbd: databases of their own, restarts that keep the data, killed connections. */
@DisplayName("MariaDbFixture")
class MariaDbFixtureTest {

    private static MariaDbServer db;

    @BeforeAll
    static void start() {
        assumeTrue(
                MariaDbFixture.unavailable().isEmpty(),
                () -> MariaDbFixture.unavailable().orElse(""));
        db = MariaDbFixture.shared();
    }

    @Test
    void eachCallerGetsADatabaseOfItsOwnThatSurvivesARestart() {
        String first = db.createDatabase("fixture");
        String second = db.createDatabase("fixture");
        assertThat(first).isNotEqualTo(second).startsWith("jdbc:mariadb://127.0.0.1:");
        String name = first.substring(first.lastIndexOf('/') + 1, first.indexOf('?'));
        db.query(name, "CREATE TABLE kept (x INT)");
        db.query(name, "INSERT INTO kept VALUES (42)");
        assumeTrue(db.canStop(), "a server of the fixture's own");
        long before = db.pid().orElseThrow();
        db.restart();
        assertThat(db.pid()).isPresent().isNotEqualTo(java.util.OptionalLong.of(before));
        assertThat(db.query(name, "SELECT x FROM kept")).isEqualTo(42);
        assertThat(db.version()).contains("MariaDB");
    }

    @Test
    void aUsersConnectionsCanBeKilled() throws Exception {
        db.query(null, "CREATE USER IF NOT EXISTS 'fixture_victim'@'%' IDENTIFIED BY 'v'");
        try (Connection victim = java.sql.DriverManager.getConnection(
                        db.jdbcUrl().replace("user=root", "user=fixture_victim&password=v"));
                Statement s = victim.createStatement()) {
            s.execute("SELECT 1");
            assertThat(db.killConnections("fixture_victim")).isEqualTo(1);
            assertThatThrownBy(() -> s.execute("SELECT 1")).isInstanceOf(java.sql.SQLException.class);
        }
    }
}
