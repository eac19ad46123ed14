package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.arjuna.ats.jta.cdi.TransactionExtension;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionManager;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("READ holds and bulkhead permits in transactions (Narayana): given back after the completion")
class TransactionHoldsTest {

    private static final TransactionManager TRANSACTIONS = com.arjuna.ats.jta.TransactionManager.transactionManager();

    private SeContainer app;
    private DistributedLockFactory locks;

    @BeforeAll
    static void configure() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @BeforeEach
    void start() {
        app = Lockkit.deployment(PartnerCalls.class, Catalog.class, Catalog.Inner.class)
                .extension(new TransactionExtension())
                .start("transaction-holds");
        locks = app.select(DistributedLockFactory.class).get();
    }

    @AfterEach
    void stop() throws Exception {
        if (TRANSACTIONS.getStatus() != Status.STATUS_NO_TRANSACTION) {
            TRANSACTIONS.rollback();
        }
        app.close();
    }

    @Test
    @DisplayName("a @Transactional bulkhead method holds its permit through the commit, and gives it back after")
    void permitCoversTheCommit() {
        PartnerCalls partner = app.select(PartnerCalls.class).get();
        AtomicInteger availableAtCommit = new AtomicInteger(-1);
        String done = partner.inTransaction(() -> register(new Synchronization() {
            @Override
            public void beforeCompletion() {
                availableAtCommit.set(semaphore().availablePermits());
            }

            @Override
            public void afterCompletion(int status) {}
        }));
        assertThat(done).isEqualTo("done");
        assertThat(availableAtCommit).as("permits free while committing").hasValue(1);
        assertThat(semaphore().availablePermits()).as("after the commit").isEqualTo(2);
    }

    @Test
    @DisplayName("a bulkhead call inside an active transaction keeps its permit until the commit")
    void permitWaitsForTheTransaction() throws Exception {
        PartnerCalls partner = app.select(PartnerCalls.class).get();
        TRANSACTIONS.begin();
        assertThat(partner.quoteOrSkip()).contains("quoted");
        assertThat(partner.quoteOrSkip())
                .as("the same transaction joins its permit")
                .contains("quoted");
        assertThat(semaphore().availablePermits()).as("returned, not committed").isEqualTo(1);
        TRANSACTIONS.commit();
        assertThat(semaphore().availablePermits()).as("after the commit").isEqualTo(2);
    }

    @Test
    @DisplayName("in one transaction a READ call after a WRITE call joins it; a WRITE after a READ fails at once")
    void readWriteNestingInATransaction() throws Exception {
        Catalog catalog = app.select(Catalog.class).get();
        TRANSACTIONS.begin();
        assertThat(catalog.writeOnce()).isEqualTo("written");
        assertThat(catalog.readOnce()).isEqualTo("read");
        assertThat(locks.tryAcquire("catalog")).as("held until the completion").isEmpty();
        TRANSACTIONS.rollback();

        TRANSACTIONS.begin();
        assertThat(catalog.readOnce()).isEqualTo("read");
        assertThatThrownBy(catalog::writeOnce)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("upgrade");
        TRANSACTIONS.commit();
        Optional<LockHandle> free =
                locks.tryAcquire("catalog", LockOptions.builder().noWait().build());
        assertThat(free).as("free after the commit").isPresent();
        free.get().close();
    }

    private DistributedSemaphore semaphore() {
        return locks.getSemaphore("partner", 2);
    }

    private static void register(Synchronization synchronization) {
        try {
            TRANSACTIONS.getTransaction().registerSynchronization(synchronization);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
