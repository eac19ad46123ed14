package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the H2 dialect promises beyond the kit: local wake-ups without polling, batched renewal, tokens. */
class JdbcLockProviderH2Test {

    private static final String URL = "jdbc:h2:mem:lockkit_h2_provider;DB_CLOSE_DELAY=-1";
    private Connection keeper;
    private JdbcLockProvider provider;

    @BeforeEach
    void createTable() throws SQLException {
        keeper = DriverManager.getConnection(URL);
        provider = JdbcLockProvider.builder()
                .jdbcUrl(URL)
                .createSchema(true)
                // A poll interval far longer than the bounds below: only a wake-up can meet them.
                .pollInterval(Duration.ofSeconds(20))
                .build();
    }

    @AfterEach
    void close() throws SQLException {
        provider.close();
        try (Statement s = keeper.createStatement()) {
            s.execute("DELETE FROM lockkit_locks");
        }
        keeper.close();
    }

    @Test
    void anExclusivePairCostsWhatItDidAndAFairClaimLooksAtTheQueueOnce() {
        FairQueueCosts.check(provider, "test:fair-costs:" + System.nanoTime(), new FairQueueCosts.Costs(4, 5, 2, -1));
    }

    @Test
    void aWaiterOfTheReleasingClientIsWokenAtOnceWithoutPolling() throws Exception {
        try (DistributedLockFactory f = DistributedLockFactory.builder(provider).build()) {
            DistributedLock holder = f.getLock("wake");
            holder.lock();
            AtomicLong acquiredAt = new AtomicLong();
            Thread waiter = new Thread(() -> {
                DistributedLock lock = f.getLock("wake");
                lock.lock();
                acquiredAt.set(System.nanoTime());
                lock.unlock();
            });
            waiter.start();
            // The waiter has made its attempts (first, and after subscribing) and parked.
            org.awaitility.Awaitility.await().until(() -> provider.statements("acquire.lockRow") >= 3);
            long released = System.nanoTime();
            holder.unlock();
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(acquiredAt.get()).isNotZero();
            assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - released))
                    .isLessThan(2000);
        }
    }

    @Test
    void anApplicationDataSourceIsRecognisedAsH2AndSharesTheTable() {
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL(URL);
        try (JdbcLockProvider fromPool =
                JdbcLockProvider.builder().dataSource(dataSource).build()) {
            assertThat(fromPool.dialect()).isEqualTo(JdbcDialect.H2);
            assertThat(fromPool.tryAcquire(new LockRequest("shared", "c:pool", Duration.ofSeconds(30), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            assertThat(provider.inspect("shared"))
                    .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsEntry("c:pool", 1));
            assertThat(provider.tryAcquire(new LockRequest("shared", "c:url", Duration.ofSeconds(30), Duration.ZERO))
                            .isAcquired())
                    .isFalse();
        }
    }

    @Test
    void renewingAThousandHoldsIsOneBatchThatFindsTheLostOnes() {
        List<Renewal> renewals = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            provider.tryAcquire(new LockRequest("r" + i, "c:o", Duration.ofSeconds(30), Duration.ZERO));
            renewals.add(new Renewal("r" + i, "c:o", Duration.ofSeconds(30)));
        }
        provider.forceRelease("r7");
        long before = provider.statements();
        List<Renewal> lost = provider.renew(renewals);
        assertThat(provider.statements() - before).isEqualTo(1);
        assertThat(lost).extracting(Renewal::name).containsExactly("r7");
    }

    @Test
    void aMissingLockTableOnAnEmptyDatabaseIsReportedAsASchemaProblemWithTheHint() {
        // H2 reports a missing table of an empty database with SQLState 42S04 (else 42S02).
        try (JdbcLockProvider empty = JdbcLockProvider.create("jdbc:h2:mem:lockkit_h2_empty;DB_CLOSE_DELAY=-1")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> empty.tryAcquire(new LockRequest("x", "c:a", Duration.ofSeconds(1), Duration.ZERO)))
                    .isInstanceOf(LockSchemaException.class)
                    .hasMessageContaining("42S04")
                    .hasMessageContaining("createSchema(true)")
                    .hasMessageContaining("/io/lockkit/jdbc/h2/migration");
        }
    }

    @Test
    void tokensKeepIncreasingAcrossReleaseExpiryAndRowDeletion() throws Exception {
        long t1 = provider.tryAcquire(new LockRequest("t", "c:a", Duration.ofMillis(1), Duration.ZERO))
                .fencingToken();
        org.awaitility.Awaitility.await().until(() -> provider.inspect("t").isEmpty());
        long t2 = provider.tryAcquire(new LockRequest("t", "c:b", Duration.ofSeconds(30), Duration.ZERO))
                .fencingToken();
        provider.release("t", "c:b");
        long t3 = provider.tryAcquire(new LockRequest("t", "c:c", Duration.ofSeconds(30), Duration.ZERO))
                .fencingToken();
        try (Statement s = keeper.createStatement()) {
            s.execute("DELETE FROM lockkit_locks");
        }
        long t4 = provider.tryAcquire(new LockRequest("t", "c:d", Duration.ofSeconds(30), Duration.ZERO))
                .fencingToken();
        assertThat(List.of(t1, t2, t3, t4)).isSorted().doesNotHaveDuplicates();
        try (Statement s = keeper.createStatement();
                ResultSet rs = s.executeQuery("SELECT token FROM lockkit_locks")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(t4);
        }
    }
}
