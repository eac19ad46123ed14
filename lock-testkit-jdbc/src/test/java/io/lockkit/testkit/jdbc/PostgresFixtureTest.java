package io.lockkit.testkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The fixture hands out real, independent PostgreSQL servers that tests can stop, start and restart. */
class PostgresFixtureTest {

    private static PostgresServer first;
    private static PostgresServer second;

    @BeforeAll
    static void startTwo() {
        PostgresFixture fixture =
                PostgresFixture.builder().sources(Source.EMBEDDED).build();
        first = fixture.start();
        second = fixture.start();
    }

    @AfterAll
    static void stopBoth() {
        if (first != null) {
            first.close();
        }
        if (second != null) {
            second.close();
        }
    }

    @Test
    void twoServersAreIndependentRealPostgres() {
        assertThat(first.jdbcUrl()).isNotEqualTo(second.jdbcUrl());
        assertThat(first.source()).isEqualTo(Source.EMBEDDED);
        assertThat(first.version()).matches("\\d+\\.\\d+.*");
        first.query("CREATE TABLE only_in_first (x int)");
        assertThat(first.query("SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_first'"))
                .isEqualTo(1L);
        assertThat(second.query("SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_first'"))
                .isEqualTo(0L);
    }

    @Test
    void stopAndStartKeepTheUrlAndTheData() {
        second.query("CREATE TABLE IF NOT EXISTS kept (x int)");
        second.query("INSERT INTO kept VALUES (42)");
        long pid = second.pid().orElseThrow();
        String url = second.jdbcUrl();
        second.stop();
        assertThat(second.isRunning()).isFalse();
        assertThat(second.pid()).isEmpty();
        second.start();
        assertThat(second.isRunning()).isTrue();
        assertThat(second.jdbcUrl()).isEqualTo(url);
        assertThat(second.pid().orElseThrow()).isNotEqualTo(pid);
        assertThat(second.query("SELECT max(x) FROM kept")).isEqualTo(42);
        second.restart();
        assertThat(second.query("SELECT max(x) FROM kept")).isEqualTo(42);
    }

    @Test
    void theServerPidIsThePostmasters() {
        long pid = first.pid().orElseThrow();
        assertThat(ProcessHandle.of(pid)).isPresent();
        assertThat(first.query("SELECT count(*) FROM pg_stat_activity WHERE pid = pg_backend_pid()"))
                .isEqualTo(1L);
    }

    @Test
    void withoutADockerEngineTestcontainersIsSkippedWithTheReason() {
        assertThatThrownBy(() -> PostgresFixture.builder()
                        .sources(Source.TESTCONTAINERS)
                        .build()
                        .start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("TESTCONTAINERS: no Docker engine answers");
    }

    @Test
    void anExplicitUrlIsUsedAsGivenAndCannotBeStopped() {
        try (PostgresServer explicit =
                PostgresFixture.builder().explicitUrl(first.jdbcUrl()).build().start()) {
            assertThat(explicit.source()).isEqualTo(Source.EXPLICIT_URL);
            assertThat(explicit.canStop()).isFalse();
            assertThat(explicit.backendControl("SELECT 1"))
                    .as("the kit's outage control")
                    .isEmpty();
            assertThatThrownBy(explicit::stop).isInstanceOf(UnsupportedOperationException.class);
        }
        assertThat(first.isRunning())
                .as("closing an explicit server leaves it running")
                .isTrue();
    }

    @Test
    void badOptionsAreRejectedNamingTheArgument() {
        assertThatThrownBy(() -> PostgresFixture.builder().explicitUrl("jdbc:mysql://x"))
                .hasMessageStartingWith("url ");
        assertThatThrownBy(() -> PostgresFixture.builder().sources()).hasMessageStartingWith("sources ");
        assertThatThrownBy(() -> PostgresFixture.builder().startupTimeout(java.time.Duration.ZERO))
                .hasMessageStartingWith("startupTimeout ");
        assertThatThrownBy(() -> first.backendControl(" ")).hasMessageStartingWith("forgetHolds ");
    }
}
