package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.testkit.history.LeadershipHistory;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kit's multi-process leadership check ({@link LeadershipHistory}) on PostgreSQL: three worker
 * JVMs campaign for one name while the leader's JVM is paused past its lease and killed, and
 * PostgreSQL is restarted and stalled past the lease (SIGSTOP of the postmaster and its backends),
 * two rounds.
 */
@Tag("fault")
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Fault: leadership history of 3 worker JVMs on PostgreSQL under pauses, kills, restarts and stalls")
class PostgresLeadershipHistoryFaultTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    /** PostgreSQL with lockkit's table, for this class. */
    @RegisterExtension
    static final PostgresContract PG = new PostgresContract();

    private final PostgresProcesses processes = new PostgresProcesses(PG.server());

    @AfterEach
    void resume() {
        processes.resumeAll();
    }

    @Test
    @DisplayName(
            "no two terms work at once, terms increase, deposed leaders are told first, a leader works again within lease + 2 s of each fault")
    void leadershipHistoryIsSafeAndLive() throws Exception {
        assumeTrue(
                PG.server().canStop() && PG.server().pid().isPresent(),
                "needs a PostgreSQL process of this test's own (not LOCKKIT_JDBC_URL)");
        LeadershipHistory.Result r = LeadershipHistory.builder()
                .provider(PostgresLeaderWorkers.class, PG.server().jdbcUrl())
                .lease(LEASE)
                .backendFault("PostgreSQL restarted", PG.server()::restart)
                .backendFault("PostgreSQL stalled past the lease", () -> processes.stall(LEASE.plusMillis(500)))
                .cleanUp(processes::resumeAll)
                .build()
                .run();
        System.out.println(r.summary());
        r.assertSafe();
        assertThat(r.report().lostHoldOverlaps())
                .as("terms whose hold PostgreSQL lost")
                .isZero();
        assertThat(r.terms().size()).as("terms").isGreaterThanOrEqualTo(5);
    }
}
