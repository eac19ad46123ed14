package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockOptions;
import io.lockkit.testkit.history.LockHistory;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kit's history check ({@link LockHistory}) on PostgreSQL: four clients (providers with pools
 * of their own, as four processes would have) with four threads each take one lock over and over
 * while the fault thread restarts PostgreSQL, terminates the providers' command connections and
 * their LISTEN connections ({@code pg_terminate_backend}), stalls the whole server (SIGSTOP of the
 * postmaster and its backends) for less and for more than a lease, keeps the lock's row locked by
 * another session for longer than a lease, and deletes the row under a holder. No two clean holds
 * may overlap, and tokens must be ordered in time.
 */
@Tag("fault")
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Fault: history of acquisitions by 4 clients on PostgreSQL under a mix of faults")
class PostgresHistoryFaultTest {

    /** Watchdog lease: renewed every second. */
    private static final Duration LEASE = Duration.ofMillis(3000);
    /** Statement timeout of the clients (whole seconds on JDBC). */
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private static final String APPLICATION = "lockkit-history";

    /** PostgreSQL with lockkit's table, for this class. */
    @RegisterExtension
    static final PostgresContract PG = new PostgresContract();

    private final PostgresProcesses processes = new PostgresProcesses(PG.server());

    @AfterEach
    void resume() {
        resumeAll();
    }

    @Test
    @DisplayName("no two clean holds overlap, and tokens are ordered in time")
    void historyShowsMutualExclusionAndFencing() throws Exception {
        assumeTrue(
                PG.server().canStop() && PG.server().pid().isPresent(),
                "needs a PostgreSQL process of this test's own (not LOCKKIT_JDBC_URL)");
        String url = PG.server().jdbcUrl() + (PG.server().jdbcUrl().contains("?") ? "&" : "?") + "ApplicationName="
                + APPLICATION;
        LockHistory.Result r = LockHistory.builder()
                .clients(
                        4,
                        listener -> DistributedLockFactory.builder(JdbcLockProvider.builder()
                                        .jdbcUrl(url)
                                        .timeout(TIMEOUT)
                                        .pollInterval(Duration.ofMillis(100))
                                        .build())
                                .defaultOptions(LockOptions.builder()
                                        .watchdogLease(LEASE)
                                        .build())
                                .onLockLost(listener)
                                .build())
                .threadsPerClient(4)
                .fault("command connections terminated", false, () -> terminate(false))
                .fault("LISTEN connections terminated", false, () -> terminate(true))
                .fault("short stall", false, () -> stall(Duration.ofMillis(300)))
                .fault("long stall", false, () -> stall(LEASE.plusMillis(500)))
                // Aimed at the start of a long critical section, so that the row exists and its holder
                // stays inside while its renewals wait on the row lock.
                .fault("row locked", true, () -> lockRows(LEASE.plusMillis(500)))
                // Frees the lock under a holder that stays in its critical section: the case fencing is for.
                .fault("row deleted", true, () -> PG.server().query("DELETE FROM " + JdbcLockProvider.DEFAULT_TABLE))
                .fault("restart", true, PG.server()::restart)
                .cleanUp(this::resumeAll)
                .minAcquisitions(3_000)
                .minRoundsOfFaults(2)
                .faultSpacing(Duration.ofMillis(1000))
                .maxRun(Duration.ofSeconds(90))
                .build()
                .run();
        System.out.println(r.summary());
        r.assertSafe();
    }

    /** Terminates the clients' backends: their LISTEN connections, or all others. */
    private static void terminate(boolean listen) throws InterruptedException {
        String filter = " FROM pg_stat_activity WHERE application_name = '" + APPLICATION + "' AND query "
                + (listen ? "" : "NOT ") + "LIKE 'LISTEN%'";
        // After a restart the LISTEN connections come back with a short back-off: wait for one.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (((Number) PG.server().query("SELECT count(*)" + filter)).longValue() == 0
                && System.nanoTime() - until < 0) {
            Thread.sleep(20);
        }
        Object n = PG.server().query("SELECT count(pg_terminate_backend(pid))" + filter);
        assertThat(((Number) n).longValue())
                .as("%s connections terminated", listen ? "LISTEN" : "command")
                .isPositive();
    }

    /** Holds a lock on every row of the lock table for {@code length} in a transaction of another session. */
    private static void lockRows(Duration length) throws Exception {
        try (Connection c = PG.server().connect();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SELECT 1 FROM " + JdbcLockProvider.DEFAULT_TABLE + " FOR UPDATE");
            Thread.sleep(length.toMillis());
            c.rollback();
        }
    }

    private void stall(Duration length) throws InterruptedException {
        processes.stall(length);
    }

    private void resumeAll() {
        processes.resumeAll();
    }
}
