package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

@DisplayName("@Locked with @Transactional on PostgreSQL (lockkit.provider=jdbc, the application's DataSource):"
        + " the next holder sees the committed row, whichever proxy runs first")
class TransactionOrderingTest {

    private static PostgresServer pg;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LockkitAutoConfiguration.class))
            .withPropertyValues("lockkit.provider=jdbc", "lockkit.jdbc.create-schema=true");

    @BeforeAll
    static void startPostgres() {
        pg = PostgresFixture.builder().build().start();
        pg.query("CREATE TABLE accounts (id text PRIMARY KEY, balance int NOT NULL)");
    }

    @AfterAll
    static void stopPostgres() {
        if (pg != null) {
            pg.close();
        }
    }

    /** The application's database: a plain DataSource, its transaction manager and JDBC template. */
    @Configuration(proxyBeanMethods = false)
    static class Database {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource(pg.jdbcUrl());
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Ledger ledger(DataSource dataSource, DistributedLockFactory factory) {
            return new Ledger(new JdbcTemplate(dataSource), factory);
        }
    }

    /** @Transactional's advisor ahead of lockkit's: the transaction begins first and commits after the method. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = LockkitAutoConfiguration.ADVISOR_ORDER - 1)
    static class TransactionOutside {}

    /** @Transactional's advisor at its default order, after lockkit's: the lock is taken before the transaction. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransactionInside {}

    @Test
    @DisplayName("@Transactional outside @Locked: the release waits for the commit")
    void transactionOutside() {
        runner.withUserConfiguration(Database.class, TransactionOutside.class)
                .run(c -> depositConcurrently(c.getBean(Ledger.class), "outside"));
    }

    @Test
    @DisplayName("@Locked outside @Transactional: the transaction has committed before the release")
    void transactionInside() {
        runner.withUserConfiguration(Database.class, TransactionInside.class)
                .run(c -> depositConcurrently(c.getBean(Ledger.class), "inside"));
    }

    private static void depositConcurrently(Ledger ledger, String account) throws Exception {
        pg.query("INSERT INTO accounts VALUES ('" + account + "', 0)");
        int threads = 4;
        int deposits = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < deposits; i++) {
                        ledger.deposit(account);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(ledger.balance(account)).isEqualTo(threads * deposits);
        assertThat(ledger.releasedBeforeCommitEnded())
                .as("commits after which another owner could take the lock")
                .isZero();
    }
}
