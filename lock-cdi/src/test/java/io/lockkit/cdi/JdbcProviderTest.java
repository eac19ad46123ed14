package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.arjuna.ats.jta.cdi.TransactionExtension;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
        "lockkit.provider=jdbc: locks in the application's PostgreSQL, never in its transactions (CDI SE + Narayana)")
class JdbcProviderTest {

    private static PostgresServer pg;
    /** Another process's view of the lock table. */
    private static JdbcLockProvider observer;

    private SeContainer app;

    @BeforeAll
    static void startPostgres() {
        pg = PostgresFixture.builder().build().start();
        pg.query("CREATE TABLE ledger_entries (account text NOT NULL)");
        observer = JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .createSchema(true)
                .build();
    }

    @AfterAll
    static void stopPostgres() {
        if (observer != null) {
            observer.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
        Lockkit.clearConfig();
        JdbcLedger.dataSource = null;
        NamedDataSources.locks = null;
    }

    private SeContainer startWithNarayana(String id) {
        JdbcLedger.dataSource = new EnlistedDataSource(pg.jdbcUrl());
        app = Lockkit.deployment(JdbcLedger.class, JdbcLedger.Inner.class, JdbcLedger.DataSources.class, LockUser.class)
                .extension(new TransactionExtension())
                .start(id);
        return app;
    }

    private static long entries(String account) {
        return ((Number) pg.query("SELECT count(*) FROM ledger_entries WHERE account = '" + account + "'")).longValue();
    }

    private static boolean held(String name) {
        return observer.inspect(name).isPresent();
    }

    @Test
    @DisplayName("with lockkit.jdbc.url, @Locked and the injected factory lock rows another process sees")
    void jdbcUrlProviderLocks() throws Exception {
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc", "lockkit.jdbc.url", pg.jdbcUrl()));
        app = Lockkit.start("jdbc-url", LockUser.class);
        LockUser user = app.select(LockUser.class).get();
        LockHandle inside = user.locked("a");
        assertThat(inside.fencingToken()).isPositive();
        assertThat(held("user:a")).as("held after the method returned").isFalse();
        try (DistributedLockFactory elsewhere = DistributedLockFactory.create(JdbcLockProvider.create(pg.jdbcUrl()));
                LockHandle hold = elsewhere.acquire("user:b")) {
            assertThat(hold.fencingToken()).isPositive();
            assertThatThrownBy(() -> user.locks().acquire("user:b", io.lockkit.LockOptions.noWait()))
                    .isInstanceOf(LockNotAcquiredException.class);
        }
        try (LockHandle mine = user.locks().acquire("user:b", io.lockkit.LockOptions.noWait())) {
            assertThat(mine.fencingToken()).isPositive();
        }
    }

    @Test
    @DisplayName("without a URL, the application's DataSource bean is used")
    void dataSourceBeanIsUsed() {
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc"));
        SeContainer c = startWithNarayana("jdbc-bean");
        int before = JdbcLedger.dataSource.plainConnections.get();
        c.select(LockUser.class).get().locked("bean");
        assertThat(JdbcLedger.dataSource.plainConnections.get())
                .as("connections the provider took from the bean")
                .isGreaterThan(before);
    }

    @Test
    @DisplayName("lockkit.jdbc.datasource naming a @Named DataSource bean: that one is used, not the @Default one")
    void namedDataSourceBeanIsUsed() {
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc", "lockkit.jdbc.datasource", "locks"));
        JdbcLedger.dataSource = new EnlistedDataSource(pg.jdbcUrl());
        NamedDataSources.locks = new EnlistedDataSource(pg.jdbcUrl());
        app = Lockkit.deployment(
                        JdbcLedger.class,
                        JdbcLedger.Inner.class,
                        JdbcLedger.DataSources.class,
                        NamedDataSources.class,
                        LockUser.class)
                .extension(new TransactionExtension())
                .start("jdbc-named");
        assertThat(app.select(LockUser.class).get().locked("named").fencingToken())
                .isPositive();
        assertThat(NamedDataSources.locks.plainConnections.get())
                .as("connections taken from @Named(\"locks\")")
                .isPositive();
        assertThat(JdbcLedger.dataSource.plainConnections.get())
                .as("connections taken from the @Default DataSource")
                .isZero();
    }

    /** A second DataSource, {@code @Named("locks")}, beside the application's {@code @Default} one. */
    @Singleton
    public static class NamedDataSources {
        static @Nullable EnlistedDataSource locks;

        @Produces
        @Singleton
        @Named("locks")
        DataSource locks() {
            return Objects.requireNonNull(locks);
        }
    }

    @Test
    @DisplayName(
            "a @Locked call inside a transaction: its lock row is committed at once, and the lock covers the commit")
    void lockInsideATransactionCoversTheCommit() throws Exception {
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc"));
        SeContainer c = startWithNarayana("jdbc-commit");
        List<String> seen = new CopyOnWriteArrayList<>();
        int enlistedBefore = JdbcLedger.dataSource.enlistedConnections.get();
        c.select(JdbcLedger.class)
                .get()
                .post(
                        "acct-1",
                        () -> {
                            seen.add("entry committed " + (entries("acct-1") == 1));
                            seen.add("lock held " + held("ledger:acct-1"));
                        },
                        false);
        assertThat(seen).containsExactly("entry committed true", "lock held true");
        assertThat(held("ledger:acct-1")).as("held after completion").isFalse();
        assertThat(entries("acct-1")).isEqualTo(1);
        // The application's insert was the only enlisted use: the lock's statements took none.
        assertThat(JdbcLedger.dataSource.enlistedConnections.get() - enlistedBefore)
                .isEqualTo(1);
    }

    @Test
    @DisplayName("a rollback of the caller's transaction leaves the lock row alone: the lock is held until released")
    void rollbackDoesNotUndoTheLock() throws Exception {
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc"));
        SeContainer c = startWithNarayana("jdbc-rollback");
        LockHandle[] hold = new LockHandle[1];
        assertThatThrownBy(() -> c.select(JdbcLedger.class).get().holdThenRollBack("acct-2", hold))
                .hasMessage("rolled back");
        assertThat(entries("acct-2")).as("the application's entry, rolled back").isZero();
        assertThat(held("ledger:acct-2")).as("the lock row after the rollback").isTrue();
        assertThat(hold[0].isValid()).isTrue();
        hold[0].release();
        assertThat(held("ledger:acct-2")).isFalse();
    }

    @Test
    @DisplayName("a @Locked call inside a transaction that rolls back releases its lock after the rollback")
    void lockInsideARolledBackTransactionIsReleased() throws Exception {
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc"));
        SeContainer c = startWithNarayana("jdbc-rollback-locked");
        assertThatThrownBy(() -> c.select(JdbcLedger.class).get().post("acct-3", () -> {}, true))
                .hasMessage("insufficient funds");
        assertThat(entries("acct-3")).isZero();
        assertThat(held("ledger:acct-3")).isFalse();
        try (LockHandle again =
                c.select(LockUser.class).get().locks().acquire("ledger:acct-3", io.lockkit.LockOptions.noWait())) {
            assertThat(again.isValid()).isTrue();
        }
    }

    // ---- start-up ----

    @Test
    @DisplayName("a wrong lockkit.jdbc.url fails the start, naming the key")
    void wrongUrlFailsTheStart() throws IOException {
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/postgres?user=postgres";
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc", "lockkit.jdbc.url", url, "lockkit.jdbc.timeout", "1s"));
        assertThatThrownBy(() -> Lockkit.start("jdbc-wrong-url", LockUser.class).close())
                .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .startsWith("lockkit: the lock backend did not answer at application start")
                                .contains("lockkit.jdbc.url = '" + url + "' (from MicroProfile Config)")));
    }

    @Test
    @DisplayName("a missing lock table fails the start, naming lockkit.jdbc.table and the table's migrations")
    void missingTableFailsTheStart() {
        Lockkit.useConfig(Map.of(
                "lockkit.provider", "jdbc", "lockkit.jdbc.url", pg.jdbcUrl(), "lockkit.jdbc.table", "no_such_locks"));
        assertThatThrownBy(() -> Lockkit.start("jdbc-no-table", LockUser.class).close())
                .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .contains("lockkit.jdbc.table set in MicroProfile Config")
                                .contains("no_such_locks")
                                .contains("create the lock table with the migrations in the lock-jdbc jar")));
    }

    @Test
    @DisplayName("lockkit.jdbc.create-schema=true creates the configured table at start")
    void createSchemaCreatesTheTable() {
        Lockkit.useConfig(Map.of(
                "lockkit.provider",
                "jdbc",
                "lockkit.jdbc.url",
                pg.jdbcUrl(),
                "lockkit.jdbc.table",
                "app_locks",
                "lockkit.jdbc.create-schema",
                "true"));
        app = Lockkit.start("jdbc-create", LockUser.class);
        assertThat(app.select(LockUser.class).get().locked("created").fencingToken())
                .isPositive();
        assertThat(pg.query("SELECT to_regclass('app_locks') IS NOT NULL")).isEqualTo(true);
    }

    @Test
    @DisplayName("without a URL, a JNDI name or a DataSource bean, the start fails naming the keys")
    void noDatabaseFailsTheStart() {
        Lockkit.useConfig(Map.of("lockkit.provider", "jdbc"));
        assertThatThrownBy(() -> Lockkit.start("jdbc-none", LockUser.class).close())
                .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .contains("javax.sql.DataSource bean")
                                .contains("lockkit.jdbc.datasource")
                                .contains("lockkit.jdbc.url")));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
