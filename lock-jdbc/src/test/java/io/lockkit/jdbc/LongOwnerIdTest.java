package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The longest owner id the core makes fits the lock tables: a client id is at most 64 characters
 * (longer ones are refused by the factory's builder, and the default cuts a long host name), and a
 * thread's owner adds {@code ":t"} and up to 19 digits, 85 characters in all, against the tables'
 * {@code owner VARCHAR(200)}, on H2 and PostgreSQL.
 */
@DisplayName("owner ids of the longest client id fit the JDBC lock tables")
class LongOwnerIdTest {

    private static final String LONGEST_CLIENT = "c".repeat(63) + "x";
    private static final String LONGEST_OWNER = LONGEST_CLIENT + ":t" + Long.MAX_VALUE;
    private static final String H2_URL = "jdbc:h2:mem:lockkit_long_owner;DB_CLOSE_DELAY=-1";

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
    @DisplayName("the client id stops at 64 characters, and the tables' owner columns take 85")
    void theTablesOwnerColumnsHoldTheLongestOwner() throws IOException {
        assertThatThrownBy(() ->
                        DistributedLockFactory.builder(new LocalLockProvider()).clientId(LONGEST_CLIENT + "y"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientId");
        for (String migration : new String[] {
            "h2/migration/V1__lockkit_locks.sql",
            "postgresql/migration/V1__lockkit_locks.sql",
            "mariadb/migration/V1__lockkit_locks.sql"
        }) {
            String sql;
            try (InputStream in = JdbcLockProvider.class.getResourceAsStream(migration)) {
                assertThat(in).as(migration).isNotNull();
                sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Matcher owner = Pattern.compile("\\bowner\\s+VARCHAR\\((\\d+)\\)").matcher(sql);
            int columns = 0;
            while (owner.find()) {
                columns++;
                assertThat(Integer.parseInt(owner.group(1)))
                        .as("an owner column of %s", migration)
                        .isGreaterThanOrEqualTo(LONGEST_OWNER.length());
            }
            assertThat(columns).as("owner columns in %s", migration).isPositive();
        }
    }

    @Test
    @DisplayName("H2: a factory with a 64-character client id locks, and inspect shows it; the longest owner is stored")
    void h2() {
        JdbcLockProvider provider =
                JdbcLockProvider.builder().jdbcUrl(H2_URL).createSchema(true).build();
        check(provider);
    }

    @Test
    @DisplayName(
            "PostgreSQL: a factory with a 64-character client id locks and waits, and inspect shows it; the longest owner is stored and queued")
    void postgres() {
        JdbcLockProvider provider = JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .createSchema(true)
                .build();
        check(provider);
        try (JdbcLockProvider other = JdbcLockProvider.create(pg.jdbcUrl())) {
            // Held by a handle of another client: the longest owner waits in the queue table.
            Acquisition held = other.tryAcquire(
                    new LockRequest("long-owner:queued", "other:h1", Duration.ofSeconds(30), Duration.ZERO));
            assertThat(held.isAcquired()).isTrue();
            Acquisition queued = other.tryAcquire(new LockRequest(
                    "long-owner:queued", LONGEST_OWNER, Duration.ofSeconds(30), Duration.ofSeconds(30), 7));
            assertThat(queued.isAcquired()).isFalse();
            assertThat(other.inspect("long-owner:queued").orElseThrow().waiters())
                    .isEqualTo(1);
            other.abandon("long-owner:queued", LONGEST_OWNER, 7);
            assertThat(other.release("long-owner:queued", "other:h1").outcome()).isEqualTo(Release.Outcome.RELEASED);
        }
    }

    private static void check(JdbcLockProvider provider) {
        try (DistributedLockFactory f = DistributedLockFactory.builder(provider)
                .clientId(LONGEST_CLIENT)
                .build()) {
            DistributedLock lock = f.getLock("long-owner:thread");
            lock.lock();
            try (LockHandle h = f.acquire("long-owner:handle")) {
                LockInfo byThread = f.operations().inspect("long-owner:thread").orElseThrow();
                assertThat(byThread.clientId()).isEqualTo(LONGEST_CLIENT);
                assertThat(byThread.owner()).startsWith(LONGEST_CLIENT + ":t");
                assertThat(f.operations()
                                .inspect("long-owner:handle")
                                .orElseThrow()
                                .owner())
                        .isEqualTo(LONGEST_CLIENT + ":h1");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            } finally {
                lock.unlock();
            }
            // The longest owner the core can make (a thread id of 19 digits), through the SPI.
            Acquisition a = provider.tryAcquire(
                    new LockRequest("long-owner:spi", LONGEST_OWNER, Duration.ofSeconds(30), Duration.ZERO));
            assertThat(a.isAcquired()).isTrue();
            assertThat(f.operations().inspect("long-owner:spi").orElseThrow().owner())
                    .isEqualTo(LONGEST_OWNER);
            assertThat(provider.release("long-owner:spi", LONGEST_OWNER).outcome())
                    .isEqualTo(Release.Outcome.RELEASED);
        }
    }
}
