package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockOptions;
import io.lockkit.testkit.history.LockHistory;
import io.lockkit.testkit.jdbc.MariaDbFixture;
import io.lockkit.testkit.jdbc.MariaDbServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The kit's history check ({@link LockHistory}) on MariaDB: four clients (providers with pools of
 * their own) with four threads each take one lock over and over while the fault thread kills a
 * worker process (SIGKILL) that holds the lock or waits for it, restarts MariaDB, kills the clients'
 * connections ({@code KILL CONNECTION}, their pollers' included), keeps the lock's row locked by
 * another session past a lease, and deletes the row under a holder. No two clean holds may overlap,
 * and tokens must be ordered in time. Skipped, saying why, where no MariaDB can be started.
 */
@Tag("fault")
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Fault: history of acquisitions by 4 clients on MariaDB under a mix of faults")
class MariaDbHistoryFaultTest {

    private static final Duration LEASE = Duration.ofMillis(3000);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final String ACCOUNT = "lockkit_history";

    private static MariaDbServer db;
    private static String url;
    private static String database;
    private static String clients;

    @BeforeAll
    static void startMariaDb() {
        assumeTrue(
                MariaDbFixture.unavailable().isEmpty(),
                () -> MariaDbFixture.unavailable().orElse(""));
        db = MariaDbFixture.shared();
        assumeTrue(db.canStop(), "needs a MariaDB of this test's own (not LOCKKIT_MARIADB_URL)");
        url = db.createDatabase("history");
        database = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
        JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build().close();
        db.query(null, "CREATE USER IF NOT EXISTS '" + ACCOUNT + "'@'%' IDENTIFIED BY 'history'");
        db.query(null, "GRANT ALL ON " + database + ".* TO '" + ACCOUNT + "'@'%'");
        clients = url.replace("user=root", "user=" + ACCOUNT + "&password=history");
    }

    @Test
    @DisplayName("no two clean holds overlap, and tokens are ordered in time")
    void historyShowsMutualExclusionAndFencing() throws Exception {
        String lock = "history-" + System.nanoTime();
        LockHistory.Result r = LockHistory.builder()
                .lockName(lock)
                .clients(
                        4,
                        listener -> DistributedLockFactory.builder(JdbcLockProvider.builder()
                                        .jdbcUrl(clients)
                                        .timeout(TIMEOUT)
                                        .pollInterval(Duration.ofMillis(100))
                                        .build())
                                .defaultOptions(LockOptions.builder()
                                        .watchdogLease(LEASE)
                                        .build())
                                .onLockLost(listener)
                                .build())
                .threadsPerClient(4)
                .fault("worker killed", false, () -> killWorker(lock))
                .fault(
                        "connections killed",
                        false,
                        () -> assertThat(db.killConnections(ACCOUNT))
                                .as("connections killed")
                                .isPositive())
                .fault("row locked", true, () -> lockRows(LEASE.plusMillis(500)))
                .fault("row deleted", true, () -> db.query(database, "DELETE FROM " + JdbcLockProvider.DEFAULT_TABLE))
                .fault("restart", true, db::restart)
                .minAcquisitions(2_000)
                .minRoundsOfFaults(2)
                .faultSpacing(Duration.ofMillis(1000))
                .maxRun(Duration.ofSeconds(90))
                .build()
                .run();
        System.out.println(r.summary());
        r.assertSafe();
    }

    /** Starts a worker process on the lock, lets it wait or hold, and kills it (SIGKILL). */
    private static void killWorker(String lock) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process worker = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        LockWorker.class.getName(),
                        clients,
                        lock,
                        Long.toString(LEASE.toMillis()))
                .redirectErrorStream(true)
                .start();
        try {
            CompletableFuture<Void> held = CompletableFuture.runAsync(() -> {
                try (BufferedReader out =
                        new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = out.readLine()) != null) {
                        if (line.startsWith("held")
                                || (line.equals("waiting")
                                        && ThreadLocalRandom.current().nextBoolean())) {
                            return;
                        }
                    }
                } catch (IOException e) {
                    // killed
                }
            });
            held.get(60, TimeUnit.SECONDS);
            Thread.sleep(ThreadLocalRandom.current().nextInt(100)); // somewhere in its hold or wait
        } finally {
            worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Holds a lock on every row of the lock table for {@code length} in a transaction of another session. */
    private static void lockRows(Duration length) throws Exception {
        try (Connection c = db.connect(database);
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SELECT 1 FROM " + JdbcLockProvider.DEFAULT_TABLE + " FOR UPDATE");
            Thread.sleep(length.toMillis()); // the fault itself: the row stays locked past the lease
            c.rollback();
        }
    }
}
