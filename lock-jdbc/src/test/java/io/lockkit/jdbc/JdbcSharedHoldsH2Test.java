package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.jdbc.internal.SqlFile;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Shared holds on H2 beyond the kit: what each kind of claim costs in statements (and that the
 * exclusive lock's costs nothing more), and a database of migration 1 upgraded by migration 2.
 */
@DisplayName("JdbcLockProvider's shared holds on H2")
class JdbcSharedHoldsH2Test {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Claim READ = Claim.shared(1, Claim.UNBOUNDED);

    private final String url = "jdbc:h2:mem:lockkit_shared_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    private Connection keeper;

    @BeforeEach
    void open() throws SQLException {
        keeper = DriverManager.getConnection(url);
    }

    @AfterEach
    void close() throws SQLException {
        try (Statement s = keeper.createStatement()) {
            s.execute("SHUTDOWN");
        }
        keeper.close();
    }

    private static LockRequest request(String name, String owner, Claim claim) {
        return new LockRequest(name, owner, LEASE, Duration.ZERO, 0, claim);
    }

    @Test
    @DisplayName("an exclusive lock and unlock costs four statements, also while other names are held shared")
    void theExclusivePathCostsWhatItCostBefore() {
        try (JdbcLockProvider p =
                JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build()) {
            long before = p.statements();
            assertThat(p.tryAcquire(new LockRequest("x", "c:a", LEASE, Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            assertThat(p.release("x", "c:a")).isEqualTo(Release.RELEASED);
            assertThat(p.statements() - before)
                    .as("lock row, insert, token, delete: as before shared holds")
                    .isEqualTo(4);

            assertThat(p.tryAcquire(request("other", "c:r", READ)).isAcquired()).isTrue();
            before = p.statements();
            p.tryAcquire(new LockRequest("x", "c:a", LEASE, Duration.ZERO));
            p.release("x", "c:a");
            assertThat(p.statements() - before)
                    .as("with a shared hold on another name")
                    .isEqualTo(4);
        }
    }

    @Test
    @DisplayName(
            "a shared claim costs one transaction: seven statements new, five reentrant, six to release the last hold")
    void aSharedClaimCostsOneShortTransaction() {
        try (JdbcLockProvider p =
                JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build()) {
            long before = p.statements();
            assertThat(p.tryAcquire(request("s", "c:r1", Claim.shared(1, 3))).isAcquired())
                    .isTrue();
            assertThat(p.statements() - before)
                    .as("ensure row, lock row, state, capacity stored, token, holder, row marked")
                    .isEqualTo(7);
            before = p.statements();
            assertThat(p.tryAcquire(request("s", "c:r1", Claim.shared(1, 3))).isAcquired())
                    .isTrue();
            assertThat(p.statements() - before)
                    .as("ensure row, lock row, state, reenter, extend")
                    .isEqualTo(5);
            before = p.statements();
            assertThat(p.tryAcquire(request("s", "c:r2", Claim.shared(1, 3))).isAcquired())
                    .isTrue();
            assertThat(p.statements() - before)
                    .as("a second holder: ensure row, lock row, state, token, holder, row")
                    .isEqualTo(6);
            before = p.statements();
            assertThat(p.renew(List.of(new Renewal("s", "c:r1", LEASE), new Renewal("s", "c:r2", LEASE))))
                    .isEmpty();
            assertThat(p.statements() - before)
                    .as("renewing two shared holds: one batch for the row, one for the holders")
                    .isEqualTo(2);
            assertThat(p.release("s", "c:r1")).isEqualTo(Release.STILL_HELD);
            assertThat(p.release("s", "c:r2")).isEqualTo(Release.RELEASED);
            before = p.statements();
            assertThat(p.release("s", "c:r1")).isEqualTo(Release.RELEASED);
            assertThat(p.statements() - before)
                    .as("the last hold: lock row, lower, delete, free")
                    .isEqualTo(4);
            assertThat(p.inspect("s")).isEmpty();
        }
    }

    @Test
    @DisplayName("clients claiming one name at once, as permits and exclusively, are never admitted past the rule")
    void clientsClaimingOneNameAtOnceAreNeverAdmittedPastTheRule() throws Exception {
        try (JdbcLockProvider a = JdbcLockProvider.builder()
                        .jdbcUrl(url)
                        .createSchema(true)
                        .build();
                JdbcLockProvider b = JdbcLockProvider.create(url);
                JdbcLockProvider c = JdbcLockProvider.create(url)) {
            SharedHoldsRace.check(List.of(a, b, c), "race", 3, Duration.ofSeconds(4));
        }
    }

    @Test
    @DisplayName(
            "an exclusive claim sees shared holders, is not blocked by lapsed ones, and their rows go with the next shared claim")
    void anExclusiveClaimSeesSharedHoldersButNotLapsedOnes() throws Exception {
        try (JdbcLockProvider p =
                JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build()) {
            Duration shortLease = Duration.ofMillis(300);
            assertThat(p.tryAcquire(new LockRequest("n", "c:r1", shortLease, Duration.ZERO, 0, READ))
                            .isAcquired())
                    .isTrue();
            assertThat(p.tryAcquire(new LockRequest("n", "c:r2", shortLease, Duration.ZERO, 0, READ))
                            .isAcquired())
                    .isTrue();
            assertThat(p.tryAcquire(new LockRequest("n", "c:w", LEASE, Duration.ZERO))
                            .isAcquired())
                    .as("a writer while two readers hold")
                    .isFalse();
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> p.tryAcquire(new LockRequest("n", "c:w", LEASE, Duration.ZERO))
                            .isAcquired());
            assertThat(p.inspect("n").orElseThrow().holdCounts()).containsOnlyKeys("c:w");
            assertThat(p.release("n", "c:w")).isEqualTo(Release.RELEASED);
            assertThat(p.tryAcquire(request("n", "c:r3", READ)).isAcquired()).isTrue();
            assertThat(holderRows())
                    .as("the lapsed readers' rows, cleared by the next shared claim")
                    .isEqualTo(1);
        }
    }

    @Test
    @DisplayName(
            "inspect shows a downgrading writer and its reader; the writer's release leaves the name to the reader")
    void aDowngradeIsInspectedAndReleasedToTheReader() {
        try (JdbcLockProvider p =
                JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build()) {
            long writer = p.tryAcquire(request("d", "c:t1", Claim.EXCLUSIVE)).fencingToken();
            long reader =
                    p.tryAcquire(request("d", "c:t1r", READ.beside("c:t1"))).fencingToken();
            assertThat(reader).isGreaterThan(writer);
            assertThat(p.inspect("d").orElseThrow().holdCounts()).containsOnlyKeys("c:t1", "c:t1r");
            assertThat(p.release("d", "c:t1")).isEqualTo(Release.RELEASED);
            assertThat(p.inspect("d").orElseThrow().holdCounts()).containsOnlyKeys("c:t1r");
            assertThat(p.tryAcquire(request("d", "x:t1", Claim.EXCLUSIVE)).isAcquired())
                    .as("another writer after the downgrade")
                    .isFalse();
            assertThat(p.release("d", "c:t1r")).isEqualTo(Release.RELEASED);
            assertThat(p.tryAcquire(request("d", "x:t1", Claim.EXCLUSIVE)).isAcquired())
                    .isTrue();
        }
    }

    @Test
    @DisplayName("a claim of more permits than the stored capacity is refused, naming it, and leaves nothing behind")
    void moreThanTheStoredCapacityIsRefused() {
        try (JdbcLockProvider p =
                JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build()) {
            assertThat(p.tryAcquire(request("cap", "c:a", Claim.shared(1, 2))).isAcquired())
                    .isTrue();
            p.release("cap", "c:a");
            assertThatThrownBy(() -> p.tryAcquire(request("cap", "c:b", Claim.shared(3, 5))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("permits must not exceed the capacity 2");
            assertThat(p.inspect("cap")).as("the refused claim holds nothing").isEmpty();
            assertThat(p.tryAcquire(request("cap", "c:x", Claim.EXCLUSIVE)).isAcquired())
                    .isTrue();
        }
    }

    @Test
    @DisplayName(
            "a database of migration 1 upgrades by migrations 2 and 3: a lock held across it stays held, then names hold shared")
    void aVersionOneDatabaseUpgrades() throws SQLException {
        try (Statement s = keeper.createStatement()) {
            for (String sql :
                    SqlFile.statementsOf("/io/lockkit/jdbc/h2/migration/V1__lockkit_locks.sql", "lockkit_locks")) {
                s.execute(sql);
            }
        }
        assertThat(version()).isEqualTo(1);
        long before;
        try (JdbcLockProvider v1 = JdbcLockProvider.create(url)) {
            before = v1.tryAcquire(new LockRequest("held", "c:x", LEASE, Duration.ZERO))
                    .fencingToken();
            assertThatThrownBy(() -> v1.tryAcquire(request("r", "c:r", READ)))
                    .as("a shared claim before the upgrade")
                    .isInstanceOf(LockSchemaException.class);
        }
        try (JdbcLockProvider v2 =
                JdbcLockProvider.builder().jdbcUrl(url).createSchema(true).build()) {
            assertThat(version()).isEqualTo(3);
            assertThat(v2.inspect("held").orElseThrow().holdCounts()).containsOnlyKeys("c:x");
            assertThat(v2.tryAcquire(request("held", "c:y", READ)).isAcquired())
                    .as("a reader beside the exclusive hold taken before the upgrade")
                    .isFalse();
            assertThat(v2.release("held", "c:x")).isEqualTo(Release.RELEASED);
            var reader = v2.tryAcquire(request("held", "c:y", READ));
            assertThat(reader.isAcquired()).isTrue();
            assertThat(reader.fencingToken()).isGreaterThan(before);
        }
    }

    private int holderRows() throws SQLException {
        try (Statement s = keeper.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM lockkit_locks_holders")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private int version() throws SQLException {
        try (Statement s = keeper.createStatement();
                ResultSet rs = s.executeQuery("SELECT max(version) FROM lockkit_locks_version")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
