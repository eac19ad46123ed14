package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.jdbc.JdbcLockProvider;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@QuarkusTest
@TestProfile(JdbcInventoryServiceTest.Jdbc.class)
@WithTestResource(PostgresResource.class)
@DisplayName("lock-cdi in Quarkus with lockkit.provider=jdbc on the Agroal datasource (embedded PostgreSQL)")
class JdbcInventoryServiceTest {

    /** A profile of its own: the application restarts with PostgreSQL instead of Redis. */
    public static class Jdbc implements QuarkusTestProfile {}

    @Inject
    InventoryService inventory;

    @Inject
    DistributedLockFactory locks;

    @Inject
    TransactionManager transactions;

    @ConfigProperty(name = "lockkit.test.jdbc-url")
    String jdbcUrl;

    @Test
    @DisplayName("concurrent calls of a @Locked method never overlap and lose no update")
    void lockedMethodExcludesConcurrentCalls() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        inventory.reserve("tea", 1);
                    }
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(inventory.mostInside()).as("callers inside at once").isEqualTo(1);
        assertThat(inventory.reserved("tea")).isEqualTo(80);
    }

    @Test
    @DisplayName("a lock held by another process (another JDBC client) excludes the @Locked method")
    void anotherProcessExcludesTheLockedMethod() throws Exception {
        try (DistributedLockFactory elsewhere = DistributedLockFactory.create(JdbcLockProvider.create(jdbcUrl));
                LockHandle hold = elsewhere.acquire("sku:sugar")) {
            assertThat(hold.fencingToken()).isPositive();
            assertThatThrownBy(() -> inventory.reserveNow("sugar", 2)).isInstanceOf(LockNotAcquiredException.class);
        }
        assertThat(inventory.reserveNow("sugar", 2)).isEqualTo(2);
    }

    @Test
    @DisplayName("a lock taken inside a transaction on the JTA datasource survives the transaction's rollback")
    void lockTakenInsideATransactionSurvivesItsRollback() throws Exception {
        transactions.begin();
        LockHandle hold;
        try {
            hold = locks.acquire("sku:salt", LockOptions.noWait());
        } finally {
            transactions.rollback();
        }
        try (DistributedLockFactory elsewhere = DistributedLockFactory.create(JdbcLockProvider.create(jdbcUrl))) {
            assertThat(hold.isValid()).isTrue();
            assertThatThrownBy(() -> elsewhere.acquire("sku:salt", LockOptions.noWait()))
                    .isInstanceOf(LockNotAcquiredException.class);
            hold.release();
            try (LockHandle after = elsewhere.acquire("sku:salt", LockOptions.noWait())) {
                assertThat(after.fencingToken()).isGreaterThan(hold.fencingToken());
            }
        }
    }
}
