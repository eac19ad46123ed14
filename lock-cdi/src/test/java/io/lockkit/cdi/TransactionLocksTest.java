package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.arjuna.ats.jta.cdi.TransactionExtension;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("TransactionLocks: the explicit API's locks released at the transaction's completion (Narayana)")
class TransactionLocksTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final TransactionManager TRANSACTIONS = com.arjuna.ats.jta.TransactionManager.transactionManager();
    private static final LockOptions BRIEFLY = LockOptions.waitAtMost(Duration.ofSeconds(5));

    private SeContainer app;
    private DistributedLockFactory elsewhere;

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @BeforeEach
    void start(RedisServer redis) {
        app = Lockkit.deployment(TransactionLocks.class)
                .extension(new TransactionExtension())
                .start("transaction-locks");
        elsewhere = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
    }

    @AfterEach
    void stop() {
        app.close();
        elsewhere.close();
    }

    @Test
    @DisplayName("held until the commit, joined by a second call, free afterwards")
    void heldUntilTheCommit() throws Exception {
        TransactionLocks locks = app.select(TransactionLocks.class).get();
        TRANSACTIONS.begin();
        LockHandle hold = locks.lockUntilCompletion("seat:1", BRIEFLY);
        LockHandle again = locks.lockUntilCompletion("seat:1", BRIEFLY);
        assertThat(again).isSameAs(hold);
        assertThat(hold.holdCount()).isEqualTo(2);
        assertThat(elsewhere.tryAcquire("seat:1"))
                .as("busy inside the transaction")
                .isEmpty();
        TRANSACTIONS.commit();
        assertThat(hold.holdCount()).isZero();
        assertThat(elsewhere.tryAcquire("seat:1"))
                .as("free after the commit")
                .isPresent()
                .get()
                .satisfies(LockHandle::close);
    }

    @Test
    @DisplayName("released after a rollback too")
    void releasedAfterARollback() throws Exception {
        TransactionLocks locks = app.select(TransactionLocks.class).get();
        TRANSACTIONS.begin();
        locks.lockUntilCompletion("seat:2", BRIEFLY);
        TRANSACTIONS.rollback();
        assertThat(elsewhere.tryAcquire("seat:2")).isPresent().get().satisfies(LockHandle::close);
    }

    @Test
    @DisplayName("outside a transaction it refuses, without taking the lock")
    void refusedOutsideATransaction() {
        TransactionLocks locks = app.select(TransactionLocks.class).get();
        assertThatThrownBy(() -> locks.lockUntilCompletion("seat:3", BRIEFLY))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs an active transaction");
        assertThat(elsewhere.tryAcquire("seat:3")).isPresent().get().satisfies(LockHandle::close);
    }
}
