package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jdbc.internal.SqlFile;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The schema on PostgreSQL: createSchema(true) runs the migrations once and afterwards only reads
 * the version table (no DDL, counted on the provider's own connections), providers starting
 * together migrate once, and a role with the grants of {@code postgresql/grants.sql} and nothing
 * else (no DDL, no EXECUTE for PUBLIC) locks, waits, hands over, renews, inspects and lists.
 */
@DisplayName("JdbcLockProvider's schema on PostgreSQL")
class PostgresSchemaTest {

    private static PostgresServer pg;

    @BeforeAll
    static void startPostgres() {
        pg = PostgresFixture.builder().build().start();
    }

    @AfterAll
    static void stopPostgres() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    @DisplayName("createSchema(true) migrates an empty database, then reads one version row and runs no DDL")
    void createSchemaRunsNoDdlWhenTheSchemaIsCurrent() {
        StatementLog log = new StatementLog(pg.jdbcUrl());
        JdbcLockProvider.builder()
                .dataSource(log.dataSource())
                .dialect(JdbcDialect.POSTGRESQL)
                .table("versioned_locks")
                .createSchema(true)
                .build()
                .close();
        assertThat(log.executed())
                .as("the first start migrates")
                .anySatisfy(sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS versioned_locks"));
        assertThat(pg.query("SELECT max(version) FROM versioned_locks_version")).isEqualTo(3);

        log.clear();
        try (JdbcLockProvider p = JdbcLockProvider.builder()
                .dataSource(log.dataSource())
                .dialect(JdbcDialect.POSTGRESQL)
                .table("versioned_locks")
                .createSchema(true)
                .build()) {
            assertThat(log.executed())
                    .as("statements of a start on a current schema")
                    .containsExactly("SELECT max(version) FROM versioned_locks_version");
            assertThat(p.tryAcquire(new LockRequest("v", "c:a", Duration.ofSeconds(30), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
        }
    }

    @Test
    @DisplayName("providers that start together on an empty database migrate it once, without an error")
    void providersStartingTogetherMigrateOnce() throws Exception {
        List<CompletableFuture<JdbcLockProvider>> starts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            starts.add(CompletableFuture.supplyAsync(() -> JdbcLockProvider.builder()
                    .jdbcUrl(pg.jdbcUrl())
                    .table("together_locks")
                    .createSchema(true)
                    .build()));
        }
        for (CompletableFuture<JdbcLockProvider> start : starts) {
            start.get(60, TimeUnit.SECONDS).close();
        }
        assertThat(pg.query("SELECT count(*) FROM together_locks_version")).isEqualTo(3L);
    }

    @Test
    @DisplayName("a role with the documented grants only (no DDL) locks, waits, hands over, renews and lists")
    void aDmlOnlyRoleLocks() throws Exception {
        JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .createSchema(true)
                .build()
                .close();
        String role = "lockkit_app_" + Long.toString(System.nanoTime(), 36);
        pg.query("CREATE ROLE " + role + " LOGIN PASSWORD 'app-secret'");
        // No EXECUTE for PUBLIC either: the grants file must grant everything the role needs.
        pg.query("REVOKE EXECUTE ON FUNCTION lockkit_locks_acquire, lockkit_locks_acquire_fair, lockkit_locks_release,"
                + " lockkit_locks_abandon FROM PUBLIC");
        try (Connection admin = pg.connect();
                Statement s = admin.createStatement()) {
            for (String grant : SqlFile.statementsOf("/io/lockkit/jdbc/postgresql/grants.sql", "lockkit_locks")) {
                s.execute(grant.replace("lockkit_app", role));
            }
        }
        String url = pg.jdbcUrl().replaceFirst("user=postgres", "user=" + role + "&password=app-secret");
        try (Connection app = DriverManager.getConnection(url);
                Statement s = app.createStatement()) {
            assertThatThrownBy(() -> s.execute("CREATE TABLE not_allowed (x int)"))
                    .as("the role has no DDL rights")
                    .isInstanceOf(SQLException.class)
                    .extracting(e -> ((SQLException) e).getSQLState())
                    .isEqualTo("42501");
        }
        try (JdbcLockProvider holder = JdbcLockProvider.builder()
                        .jdbcUrl(url)
                        .createSchema(true)
                        .build();
                JdbcLockProvider waiter = JdbcLockProvider.create(url);
                DistributedLockFactory holding = DistributedLockFactory.create(holder);
                DistributedLockFactory waiting = DistributedLockFactory.create(waiter)) {
            String name = "dml-only:" + role;
            LockHandle h = holding.acquire(name, LockOptions.noWait());
            CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
                try (LockHandle w = waiting.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(20)))) {
                    return w.fencingToken();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() ->
                            holder.inspect(name).map(st -> st.waiters() == 1).orElse(false));
            h.release();
            assertThat(next.get(20, TimeUnit.SECONDS))
                    .as("the waiter's token, after a hand-over")
                    .isGreaterThan(h.fencingToken());
            String other = name + ":renewed";
            assertThat(holder.tryAcquire(new LockRequest(other, "c:o", Duration.ofSeconds(5), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            assertThat(holder.renew(List.of(new Renewal(other, "c:o", Duration.ofSeconds(30)))))
                    .as("lost renewals")
                    .isEmpty();
            assertThat(holder.list("dml-only:", null, 10).locks()).hasSize(1);
            assertThat(holder.inspect(other)).isPresent();
            assertThat(holder.forceRelease(other)).isTrue();
            String shared = name + ":shared";
            Claim permits = Claim.shared(1, 2);
            assertThat(holder.tryAcquire(
                                    new LockRequest(shared, "c:p1", Duration.ofSeconds(30), Duration.ZERO, 0, permits))
                            .isAcquired())
                    .as("a permit, with the grants of migration 2")
                    .isTrue();
            assertThat(holder.renew(List.of(new Renewal(shared, "c:p1", Duration.ofSeconds(30)))))
                    .isEmpty();
            assertThat(holder.release(shared, "c:p1")).isEqualTo(Release.RELEASED);
            String fair = name + ":fair";
            LockRequest first =
                    new LockRequest(fair, "c:f1", Duration.ofSeconds(30), Duration.ZERO, 0, Claim.EXCLUSIVE.fairly());
            assertThat(holder.tryAcquire(first).isAcquired())
                    .as("a fair lock, with the grants of migration 3")
                    .isTrue();
            assertThat(holder.tryAcquire(new LockRequest(
                                    fair,
                                    "c:f2",
                                    Duration.ofSeconds(30),
                                    Duration.ofSeconds(5),
                                    0,
                                    Claim.shared(1, 2).fairly()))
                            .isAcquired())
                    .as("a fair permit's attempt queues it")
                    .isFalse();
            assertThat(holder.inspect(fair).orElseThrow().waiters()).isEqualTo(1);
            holder.abandon(fair, "c:f2", 0);
            assertThat(holder.release(fair, "c:f1")).isEqualTo(Release.RELEASED);
        }
    }

    @Test
    @DisplayName(
            "a database of migration 1 upgrades by running migration 2: a lock held across it stays held, then names hold shared")
    void aVersionOneDatabaseUpgradesToSharedHolds() throws Exception {
        String table = "upgraded_locks";
        applyMigrations(table, "V1__lockkit_locks.sql");
        assertThat(pg.query("SELECT max(version) FROM " + table + "_version")).isEqualTo(1);
        long before;
        try (JdbcLockProvider v1 =
                JdbcLockProvider.builder().jdbcUrl(pg.jdbcUrl()).table(table).build()) {
            before = v1.tryAcquire(new LockRequest("held", "c:x", Duration.ofSeconds(60), Duration.ZERO))
                    .fencingToken();
            assertThatThrownBy(() -> v1.tryAcquire(
                            new LockRequest("r", "c:r", Duration.ofSeconds(30), Duration.ZERO, 0, Claim.shared(1, 0))))
                    .as("a shared claim before the upgrade: the schema is missing a part")
                    .isInstanceOf(LockSchemaException.class);
        }
        try (JdbcLockProvider v2 = upgrading(table)) {
            assertThat(v2.inspect("held").orElseThrow().holdCounts()).containsOnlyKeys("c:x");
            assertThat(v2.tryAcquire(new LockRequest(
                                    "held", "c:y", Duration.ofSeconds(30), Duration.ZERO, 0, Claim.shared(1, 0)))
                            .isAcquired())
                    .as("a reader beside the exclusive hold taken before the upgrade")
                    .isFalse();
            assertThat(v2.release("held", "c:x")).isEqualTo(Release.RELEASED);
            var reader = v2.tryAcquire(
                    new LockRequest("held", "c:y", Duration.ofSeconds(30), Duration.ZERO, 0, Claim.shared(1, 0)));
            assertThat(reader.isAcquired()).isTrue();
            assertThat(reader.fencingToken()).isGreaterThan(before);
        }
    }

    @Test
    @DisplayName(
            "a database of migration 2 upgrades by running migration 3: a waiter queued before it keeps its place ahead of fair claims")
    void aVersionTwoDatabaseUpgradesToTheFairQueue() throws Exception {
        String table = "fair_upgraded_locks";
        applyMigrations(table, "V1__lockkit_locks.sql", "V2__lockkit_holders.sql");
        Duration lease = Duration.ofSeconds(30);
        try (JdbcLockProvider v2 =
                JdbcLockProvider.builder().jdbcUrl(pg.jdbcUrl()).table(table).build()) {
            assertThat(v2.tryAcquire(new LockRequest("n", "h:t1", lease, Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            assertThat(v2.tryAcquire(new LockRequest("n", "w:t1", lease, lease)).isAcquired())
                    .as("a waiter queued before the upgrade")
                    .isFalse();
        }
        try (JdbcLockProvider v3 = upgrading(table)) {
            assertThat(pg.query("SELECT weight FROM " + table + "_waiters WHERE owner = 'w:t1'"))
                    .as("an entry from before the upgrade waits for the whole name")
                    .isEqualTo(0);
            LockRequest fair = new LockRequest("n", "f:t1", lease, lease, 0, Claim.EXCLUSIVE.fairly());
            assertThat(v3.tryAcquire(fair).isAcquired()).isFalse();
            assertThat(v3.release("n", "h:t1").grantee())
                    .as("the release hands the lock to the waiter that queued first")
                    .isEqualTo("w:t1");
            assertThat(v3.tryAcquire(fair).isAcquired())
                    .as("the fair claim, while the lock is handed to the earlier waiter")
                    .isFalse();
            assertThat(v3.tryAcquire(new LockRequest("n", "w:t1", lease, lease)).isAcquired())
                    .isTrue();
            assertThat(v3.release("n", "w:t1").grantee()).isEqualTo("f:t1");
            assertThat(v3.tryAcquire(fair).isAcquired()).isTrue();
        }
    }

    /** Runs the migration files {@code files} for {@code table}, as an operator would, without the provider. */
    private static void applyMigrations(String table, String... files) throws SQLException {
        try (Connection admin = pg.connect();
                Statement s = admin.createStatement()) {
            for (String file : files) {
                for (String sql : SqlFile.statementsOf("/io/lockkit/jdbc/postgresql/migration/" + file, table)) {
                    s.execute(sql);
                }
            }
        }
    }

    /** A provider on {@code table} that upgraded it (createSchema), checked to be at the newest version. */
    private static JdbcLockProvider upgrading(String table) {
        JdbcLockProvider p = JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .table(table)
                .createSchema(true)
                .build();
        assertThat(pg.query("SELECT max(version) FROM " + table + "_version")).isEqualTo(3);
        return p;
    }
}
