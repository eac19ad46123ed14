package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.history.PrimitiveHistory;
import io.lockkit.testkit.history.PrimitiveHistory.Primitive;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kit's multi-process history of the read/write lock, the leased semaphore, the multi-lock and,
 * where the JDBC provider declares a fair queue, the fair lock ({@link PrimitiveHistory}) on
 * PostgreSQL: three worker JVMs with three threads each take the primitive over and over while a
 * worker is paused past its lease and another killed (and replaced), PostgreSQL is restarted,
 * stalled past the lease (SIGSTOP of the postmaster and its backends) and has the workers'
 * connections terminated ({@code pg_terminate_backend}). No write hold may overlap another valid
 * hold, the permits of valid holds never exceed the capacity, tokens are ordered after write holds;
 * a multi-lock's members are a lock's holds per name, and every grant holds all its names. Short in
 * CI (one round, 1,000 acquisitions; 150 multi-locks); {@value PrimitiveHistory#ACQUISITIONS_PROPERTY}
 * lengthens it.
 */
@Tag("fault")
@DisplayName("Fault: multi-process histories of the read/write lock, the semaphore, the fair lock and the multi-lock"
        + " on PostgreSQL")
class PostgresPrimitiveHistoryFaultTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final String APPLICATION = "lockkit-primitive-history";

    /** PostgreSQL with lockkit's table, for this class. */
    @RegisterExtension
    static final PostgresContract PG = new PostgresContract();

    private final PostgresProcesses processes = new PostgresProcesses(PG.server());

    @AfterEach
    void resume() {
        processes.resumeAll();
    }

    @Test
    @Tag("second-pass") // CI runs each in one of its two passes only: see .ci/run
    @DisplayName("read/write lock: no write hold overlaps another valid hold; tokens follow write holds")
    void readWriteLockHistoryIsSafe() throws Exception {
        PrimitiveHistory.Result r = run(Primitive.READ_WRITE_LOCK);
        assertThat(r.report().exclusive()).as("write holds").isPositive();
        assertThat(r.report().maxWeight()).as("readers at once").isGreaterThan(1);
    }

    @Test
    @Tag("first-pass")
    @DisplayName("semaphore of 3: the permits of valid holds never exceed 3")
    void semaphoreHistoryIsSafe() throws Exception {
        PrimitiveHistory.Result r = run(Primitive.SEMAPHORE);
        assertThat(r.report().maxWeight()).as("permits held at once").isEqualTo(3);
    }

    @Test
    @Tag("second-pass")
    @DisplayName("fair lock: no two valid holds overlap; tokens increase (where the provider has a fair queue)")
    void fairLockHistoryIsSafe() throws Exception {
        try (LockProvider provider =
                new PostgresLeaderWorkers().apply(PG.server().jdbcUrl())) {
            assumeTrue(
                    provider.capabilities().contains(LockProvider.Capability.FAIR_QUEUE),
                    "the JDBC provider declares no FAIR_QUEUE: no fair lock to check");
        }
        run(Primitive.FAIR_LOCK);
    }

    @Test
    @Tag("first-pass")
    @DisplayName("multi-lock of 2 or 3 of 4 names in random orders: no two valid holds of a name overlap; tokens follow"
            + " each name's grants; every grant holds all it asked for; no deadlock")
    void multiLockHistoryIsSafe() throws Exception {
        // Shorter than the others in CI (150 multi-locks, faults 0.25 s apart): its 10,000 come from the longer run.
        PrimitiveHistory.Result r = run(Primitive.MULTI_LOCK, 150, Duration.ofMillis(250));
        assertThat(r.report().holds()).as("member holds").isGreaterThan(2 * r.acquisitions());
    }

    private PrimitiveHistory.Result run(Primitive primitive) throws Exception {
        return run(primitive, 1_000, Duration.ofSeconds(1));
    }

    private PrimitiveHistory.Result run(Primitive primitive, int acquisitions, Duration spacing) throws Exception {
        assumeTrue(
                PG.server().canStop() && PG.server().pid().isPresent(),
                "needs a PostgreSQL process of this test's own (not LOCKKIT_JDBC_URL)");
        String url = PG.server().jdbcUrl() + (PG.server().jdbcUrl().contains("?") ? "&" : "?") + "ApplicationName="
                + APPLICATION;
        PrimitiveHistory.Result r = PrimitiveHistory.builder(primitive)
                .provider(PostgresLeaderWorkers.class, url)
                .name("primitive-history:"
                        + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36))
                .lease(LEASE)
                .backendFault("PostgreSQL restarted", PG.server()::restart)
                .backendFault("PostgreSQL stalled past the lease", () -> processes.stall(LEASE.plusMillis(500)))
                .backendFault("connections terminated", PostgresPrimitiveHistoryFaultTest::terminate)
                .cleanUp(processes::resumeAll)
                .length(acquisitions, 1, Duration.ofSeconds(120))
                .faultSpacing(spacing)
                .build()
                .run();
        System.out.println(r.summary());
        r.assertSafe();
        return r;
    }

    /** Terminates every connection of the workers (commands and LISTEN). */
    private static void terminate() {
        PG.server()
                .query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '"
                        + APPLICATION + "'");
    }
}
