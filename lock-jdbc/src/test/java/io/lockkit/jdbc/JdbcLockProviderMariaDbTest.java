package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jdbc.internal.SqlFile;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import io.lockkit.testkit.jdbc.MariaDbFixture;
import io.lockkit.testkit.jdbc.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the MariaDB dialect promises beyond the kit: statements per contended acquisition, wake-ups
 * without a thundering herd and their latency, tokens that never go back, the database clock, one
 * renewal batch, the schema (no DDL at a normal start, a data-only account). Skipped, saying why,
 * where no MariaDB can be started.
 */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("JdbcLockProvider on MariaDB, beyond the kit")
class JdbcLockProviderMariaDbTest {

    private static MariaDbServer db;
    private static String url;
    private static String database;
    private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startMariaDb() {
        assumeTrue(
                MariaDbFixture.unavailable().isEmpty(),
                () -> MariaDbFixture.unavailable().orElse(""));
        db = MariaDbFixture.shared();
        url = db.createDatabase("provider");
        database = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
        JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build().close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private JdbcLockProvider provider() {
        JdbcLockProvider p = JdbcLockProvider.create(url);
        toClose.add(p);
        return p;
    }

    private DistributedLockFactory factory(JdbcLockProvider p) {
        DistributedLockFactory f = DistributedLockFactory.builder(p).build();
        toClose.add(0, f);
        return f;
    }

    private static String name(String test) {
        return "test:" + test + ":" + System.nanoTime();
    }

    private static Object sql(String statement) {
        return db.query(database, statement);
    }

    @Test
    @DisplayName("clients claiming one name at once, as permits and exclusively, are never admitted past the rule")
    void clientsClaimingOneNameAtOnceAreNeverAdmittedPastTheRule() throws Exception {
        SharedHoldsRace.check(List.of(provider(), provider(), provider()), name("race"), 3, Duration.ofSeconds(4));
    }

    @Test
    @DisplayName(
            "an exclusive lock and unlock stays two statements; a fair one looks at the queue once more, and inspect counts fair waiters")
    void anExclusivePairStaysTwoStatementsAndAFairClaimLooksAtTheQueueOnce() {
        FairQueueCosts.check(provider(), name("fair-costs"), new FairQueueCosts.Costs(2, 3, 3, 2));
    }

    @Test
    @DisplayName(
            "an exclusive lock and unlock stays two statements; each kind of shared claim costs one short transaction")
    void anExclusivePairStaysTwoStatementsAndEachSharedClaimKindCostsOneShortTransaction() {
        SharedHoldCosts.check(provider(), name("costs"), new SharedHoldCosts.Costs(2, 8, 7, 5, 5, 4));
    }

    @Test
    void theDialectIsToldFromTheUrlAndFromTheDataSource() {
        assertThat(provider().dialect()).isEqualTo(JdbcDialect.MARIADB);
        assertThat(JdbcDialect.detect("jdbc:mysql://db:3306/app")).isEqualTo(JdbcDialect.MARIADB);
        assertThat(JdbcDialect.detect("MySQL")).isEqualTo(JdbcDialect.MARIADB);
        JdbcLockProvider fromDataSource = JdbcLockProvider.builder()
                .dataSource(new StatementLog(url).dataSource())
                .build();
        toClose.add(fromDataSource);
        assertThat(fromDataSource.dialect()).isEqualTo(JdbcDialect.MARIADB);
    }

    @Test
    void aContendedAcquisitionCostsAtMostThreeStatementsAcrossProcesses() throws Exception {
        List<JdbcLockProvider> providers = new ArrayList<>();
        List<DistributedLockFactory> factories = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            JdbcLockProvider p = provider();
            providers.add(p);
            factories.add(factory(p));
        }
        String n = name("contended");
        LockHandle first = factories.get(0).acquire(n, LockOptions.noWait());
        long before = providers.stream().mapToLong(p -> p.statements("acquire")).sum();
        AtomicInteger done = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (DistributedLockFactory f : factories) {
            DistributedLock lock = f.getLock(n);
            for (int t = 0; t < 4; t++) {
                Thread th = new Thread(() -> {
                    for (int i = 0; i < 5; i++) {
                        lock.lock();
                        done.incrementAndGet();
                        lock.unlock();
                    }
                });
                threads.add(th);
                th.start();
            }
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> providers.stream()
                                        .mapToLong(p -> p.statements("acquire"))
                                        .sum()
                                - before
                        >= 17);
        first.release();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(done).hasValue(80);
        double perAcquisition =
                (providers.stream().mapToLong(p -> p.statements("acquire")).sum() - before) / 81.0;
        System.out.printf(
                "MariaDB, 4 processes x 4 threads: %.2f acquire statements per acquisition%n", perAcquisition);
        assertThat(perAcquisition).isLessThanOrEqualTo(3.0);
    }

    @Test
    void aReleaseWakesOnlyTheWaiterItHandsTheLockToAndOtherProcessesLearnOfItWithinMilliseconds() throws Exception {
        // Four processes with four waiting threads each, one hot lock: the poller of each process
        // looks at the lock in one query; a release hands the lock to one waiter, and only that
        // waiter makes another attempt (no thundering herd).
        JdbcLockProvider holderProvider = provider();
        DistributedLockFactory holder = factory(holderProvider);
        List<JdbcLockProvider> waiting = new ArrayList<>();
        String n = name("wake-ups");
        LockHandle held = holder.acquire(n, LockOptions.noWait());
        List<Long> latencies = new CopyOnWriteArrayList<>();
        AtomicLong releasedAt = new AtomicLong();
        CountDownLatch all = new CountDownLatch(16);
        for (int c = 0; c < 4; c++) {
            JdbcLockProvider p = provider();
            waiting.add(p);
            DistributedLockFactory f = factory(p);
            for (int t = 0; t < 4; t++) {
                new Thread(() -> {
                            try (LockHandle h = f.acquire(n, LockOptions.waitAtMost(Duration.ofSeconds(60)))) {
                                latencies.add(System.nanoTime() - releasedAt.get());
                                releasedAt.set(System.nanoTime());
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } finally {
                                all.countDown();
                            }
                        })
                        .start();
            }
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        holderProvider.inspect(n).map(s -> s.waiters() == 16).orElse(false));
        long attemptsBefore =
                waiting.stream().mapToLong(p -> p.statements("acquire")).sum();
        releasedAt.set(System.nanoTime());
        held.release();
        assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
        long attempts = waiting.stream().mapToLong(p -> p.statements("acquire")).sum() - attemptsBefore;
        List<Long> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        long p50 = TimeUnit.NANOSECONDS.toMicros(sorted.get(sorted.size() / 2));
        long max = TimeUnit.NANOSECONDS.toMicros(sorted.get(sorted.size() - 1));
        System.out.printf(
                "MariaDB hand-offs among 4 processes x 4 waiting threads: p50 %d us, max %d us, %d acquire statements"
                        + " for 16 acquisitions%n",
                p50, max, attempts);
        assertThat(attempts)
                .as("acquire statements after the first release: about one per acquisition, not one per waiter")
                .isLessThanOrEqualTo(16 * 2);
        assertThat(max).as("the slowest hand-off, us").isLessThan(TimeUnit.SECONDS.toMicros(2));
    }

    @Test
    void aWaiterOfALockHeldForLongCostsItsProcessAFewQueriesASecond() throws Exception {
        JdbcLockProvider holderProvider = provider();
        LockHandle held = factory(holderProvider).acquire(name("long-held"), LockOptions.noWait());
        JdbcLockProvider p = provider();
        DistributedLockFactory f = factory(p);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return f.tryAcquire(held.name(), LockOptions.waitAtMost(Duration.ofSeconds(3)))
                        .isPresent();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> p.statements("watch") > 0);
        Thread.sleep(1000); // the poller slows down while nothing changes
        long before = p.statements("watch");
        Thread.sleep(1000); // the measurement: one second of waiting
        long perSecond = p.statements("watch") - before;
        System.out.printf("MariaDB: a waiter's process looks %d times a second at a lock held for long%n", perSecond);
        assertThat(perSecond).as("watch queries in one second").isBetween(1L, 12L);
        assertThat(waiter.get(10, TimeUnit.SECONDS))
                .as("timed out, as the lock stayed held")
                .isFalse();
        held.release();
    }

    @Test
    void tokensNeverGoBackAcrossReleaseDeletedRowsACounterSetBackAndARestart() {
        String n = name("tokens");
        JdbcLockProvider p = provider();
        List<Long> tokens = new ArrayList<>();
        tokens.add(p.tryAcquire(new LockRequest(n, "c:a", Duration.ofSeconds(30), Duration.ZERO))
                .fencingToken());
        assertThat(p.release(n, "c:a")).isEqualTo(Release.RELEASED);
        tokens.add(p.tryAcquire(new LockRequest(n, "c:b", Duration.ofSeconds(30), Duration.ZERO))
                .fencingToken());
        sql("DELETE FROM lockkit_locks");
        // As a crash that lost the counter's last commits, or a restored backup: the clock floors it.
        sql("UPDATE lockkit_locks_tokens SET last_token = 0");
        tokens.add(p.tryAcquire(new LockRequest(n, "c:c", Duration.ofSeconds(30), Duration.ZERO))
                .fencingToken());
        if (db.canStop()) {
            db.restart();
            sql("DELETE FROM lockkit_locks");
            tokens.add(p.tryAcquire(new LockRequest(n, "c:d", Duration.ofSeconds(30), Duration.ZERO))
                    .fencingToken());
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void leaseDeadlinesAreSetAndComparedOnTheDatabaseClock() {
        JdbcLockProvider p = provider();
        String n = name("clock");
        p.tryAcquire(new LockRequest(n, "c:o", Duration.ofSeconds(90), Duration.ZERO));
        Object left = sql("SELECT (lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) / 1000000"
                + " FROM lockkit_locks WHERE name = '" + n + "'");
        assertThat(((Number) left).doubleValue()).isBetween(80.0, 90.0);
        sql("UPDATE lockkit_locks SET lease_until = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) - 1000"
                + " WHERE name = '" + n + "'");
        assertThat(p.tryAcquire(new LockRequest(n, "c:other", Duration.ofSeconds(5), Duration.ZERO))
                        .isAcquired())
                .isTrue();
    }

    @Test
    void oneBatchRenewsAThousandHoldsAndReturnsThoseNoLongerHeld() {
        JdbcLockProvider p = provider();
        String prefix = name("renew");
        List<Renewal> renewals = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String n = prefix + ":" + i;
            p.tryAcquire(new LockRequest(n, "c:o" + i, Duration.ofSeconds(30), Duration.ZERO));
            renewals.add(new Renewal(n, "c:o" + i, Duration.ofSeconds(60)));
        }
        for (int i = 0; i < 10; i++) {
            assertThat(p.forceRelease(prefix + ":" + (i * 100))).isTrue();
        }
        long before = p.statements();
        List<Renewal> lost = p.renew(renewals);
        assertThat(p.statements() - before).as("round trips for 1000 renewals").isEqualTo(1);
        assertThat(lost).hasSize(10);
        assertThat(p.forceRelease(prefix + ":0")).as("already gone").isFalse();
    }

    @Test
    void createSchemaRunsNoDdlOnACurrentSchemaAndADataOnlyAccountLocks() throws Exception {
        StatementLog log = new StatementLog(url);
        JdbcLockProvider.builder()
                .dataSource(log.dataSource())
                .createSchema(true)
                .build()
                .close();
        assertThat(log.executed()).containsExactly("SELECT max(version) FROM lockkit_locks_version");

        String account = "lk_app_" + Long.toString(System.nanoTime() % 1_000_000, 36);
        db.query(null, "CREATE USER '" + account + "'@'%' IDENTIFIED BY 'app-secret'");
        try (Connection admin = db.connect(database);
                Statement s = admin.createStatement()) {
            for (String grant : SqlFile.statementsOf("/io/lockkit/jdbc/mariadb/grants.sql", "lockkit_locks")) {
                s.execute(grant.replace("lockkit_db", database).replace("'lockkit_app'", "'" + account + "'"));
            }
        }
        String app = url.replace("user=root", "user=" + account + "&password=app-secret");
        try (Connection c = DriverManager.getConnection(app);
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("CREATE TABLE not_allowed (x INT)"))
                    .as("the account has no DDL rights")
                    .isInstanceOf(SQLException.class);
        }
        try (JdbcLockProvider holder = JdbcLockProvider.builder()
                        .jdbcUrl(app)
                        .createSchema(true)
                        .build();
                JdbcLockProvider waiter = JdbcLockProvider.create(app);
                DistributedLockFactory holding = DistributedLockFactory.create(holder);
                DistributedLockFactory waiting = DistributedLockFactory.create(waiter)) {
            String n = name("data-only");
            LockHandle h = holding.acquire(n, LockOptions.noWait());
            CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
                try (LockHandle w = waiting.acquire(n, LockOptions.waitAtMost(Duration.ofSeconds(20)))) {
                    return w.fencingToken();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> holder.inspect(n).map(st -> st.waiters() == 1).orElse(false));
            h.release();
            assertThat(next.get(20, TimeUnit.SECONDS)).isGreaterThan(h.fencingToken());
            assertThat(holder.tryAcquire(new LockRequest(n + ":r", "c:o", Duration.ofSeconds(5), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            assertThat(holder.renew(List.of(new Renewal(n + ":r", "c:o", Duration.ofSeconds(30)))))
                    .isEmpty();
            assertThat(holder.list("test:data-only", null, 10).locks()).hasSize(1);
            assertThat(holder.forceRelease(n + ":r")).isTrue();
        }
    }

    @Test
    void aMissingLockTableIsReportedAsASchemaProblem() {
        JdbcLockProvider p =
                JdbcLockProvider.builder().jdbcUrl(url).table("no_such_table").build();
        toClose.add(p);
        assertThatThrownBy(() -> p.tryAcquire(new LockRequest("x", "c:a", Duration.ofSeconds(1), Duration.ZERO)))
                .isInstanceOf(LockSchemaException.class)
                .hasMessageContaining("createSchema(true)");
        assertThatThrownBy(() -> p.inspect("x")).isInstanceOf(LockSchemaException.class);
    }
}
