package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.jdbc.internal.SqlFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** docs/jdbc.md shows the SQL the jar ships, not a copy that drifted: each grants file's statements verbatim. */
class JdbcDocsTest {

    private static final Path PAGE = Path.of("../docs/jdbc.md");

    @Test
    @DisplayName("docs/jdbc.md carries every statement of each dialect's grants.sql")
    void theGrantsOnThePageAreTheShippedOnes() throws IOException {
        String page = Files.readString(PAGE);
        for (JdbcDialect dialect : JdbcDialect.values()) {
            String grants = dialect.resourceFolder() + "/grants.sql";
            if (JdbcDocsTest.class.getResource(grants) == null) {
                continue; // H2: an embedded database's user owns its tables
            }
            for (String statement : SqlFile.statementsOf(grants, SqlFile.DEFAULT_TABLE)) {
                assertThat(page).as("%s on %s", statement, PAGE).contains(statement + ";");
            }
        }
    }

    @Test
    @DisplayName("docs/jdbc.md shows the Liquibase change sets MigrationToolsTest applies")
    void theLiquibaseChangeSetsOnThePageAreTheTestedOnes() throws IOException {
        String page = Files.readString(PAGE);
        for (String changelog : new String[] {"lockkit-postgresql.xml", "lockkit-mariadb.xml"}) {
            String xml = Files.readString(Path.of("src/test/resources/liquibase", changelog));
            String changeSet = xml.substring(xml.indexOf("<changeSet"), xml.indexOf("</changeSet>") + 12);
            assertThat(page).as("%s on %s", changeSet, PAGE).contains(changeSet);
        }
    }

    @Test
    @DisplayName("docs/jdbc.md names each dialect's migration folder")
    void thePageNamesTheMigrationFolders() throws IOException {
        String page = Files.readString(PAGE);
        for (JdbcDialect dialect : JdbcDialect.values()) {
            assertThat(page).contains(dialect.migrationFolder().substring(1));
        }
    }
}
