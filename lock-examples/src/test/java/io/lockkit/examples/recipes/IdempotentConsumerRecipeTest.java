package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.jdbc.PostgresExtension;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The recipe "an idempotent message consumer" (docs/recipes.md): a lock per message id and a
 * processed-marker committed with the effect make redeliveries harmless, concurrent ones included,
 * and a delivery that failed before its commit is done by the next one.
 */
@DisplayName("recipe: an idempotent message consumer")
class IdempotentConsumerRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @RegisterExtension
    static final PostgresExtension POSTGRES = new PostgresExtension();

    private final List<DistributedLockFactory> factories = new ArrayList<>();
    private final String account = "acct-" + UUID.randomUUID();
    private PGSimpleDataSource dataSource;

    @BeforeAll
    static void createTables(PostgresServer postgres) {
        postgres.query("CREATE TABLE IF NOT EXISTS processed_messages (message_id VARCHAR(64) PRIMARY KEY)");
        postgres.query(
                "CREATE TABLE IF NOT EXISTS accounts (id VARCHAR(64) PRIMARY KEY, balance_cents BIGINT NOT NULL)");
    }

    @BeforeEach
    void setUp(PostgresServer postgres) {
        dataSource = new PGSimpleDataSource();
        dataSource.setURL(postgres.jdbcUrl());
        postgres.query("INSERT INTO accounts (id, balance_cents) VALUES ('" + account + "', 0)");
    }

    @AfterEach
    void closeFactories() {
        factories.forEach(DistributedLockFactory::close);
    }

    private DistributedLockFactory instance(RedisServer redis) {
        DistributedLockFactory locks = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
        factories.add(locks);
        return locks;
    }

    /** A message from the broker: which payment, to which account, how much. */
    record Payment(String messageId, String account, long cents) {}

    // guide:consumer-begin
    /** Credits each payment once, however often and however concurrently the broker delivers it. */
    static final class PaymentConsumer {

        private final DistributedLockFactory locks;
        private final DataSource db;

        PaymentConsumer(DistributedLockFactory locks, DataSource db) {
            this.locks = locks;
            this.db = db;
        }

        /** Handles one delivery; false when the message had been processed before. */
        boolean onMessage(Payment payment) throws SQLException, InterruptedException {
            LockOptions wait = LockOptions.waitAtMost(Duration.ofSeconds(30));
            return locks.callWithLock("message:" + payment.messageId(), wait, () -> {
                try (Connection c = db.getConnection()) {
                    c.setAutoCommit(false);
                    try {
                        if (processed(c, payment.messageId())) {
                            c.rollback();
                            return false; // a redelivery: the effect is there already
                        }
                        credit(c, payment.account(), payment.cents());
                        markProcessed(c, payment.messageId()); // its primary key backs up the lock
                        c.commit(); // effect and marker commit together, while the lock is held
                        return true;
                    } catch (SQLException | RuntimeException e) {
                        c.rollback(); // neither is kept: the next delivery does both
                        throw e;
                    }
                }
            });
        }
    }
    // guide:consumer-end

    private static boolean processed(Connection c, String messageId) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT 1 FROM processed_messages WHERE message_id = ?")) {
            select.setString(1, messageId);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void credit(Connection c, String account, long cents) throws SQLException {
        try (PreparedStatement update =
                c.prepareStatement("UPDATE accounts SET balance_cents = balance_cents + ? WHERE id = ?")) {
            update.setLong(1, cents);
            update.setString(2, account);
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("no account " + account);
            }
        }
    }

    private static void markProcessed(Connection c, String messageId) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO processed_messages (message_id) VALUES (?)")) {
            insert.setString(1, messageId);
            insert.executeUpdate();
        }
    }

    private long balance() throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement select = c.prepareStatement("SELECT balance_cents FROM accounts WHERE id = ?")) {
            select.setString(1, account);
            try (ResultSet rs = select.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }

    @Test
    @DisplayName("every message delivered three times to each of two instances at once is credited once")
    void concurrentRedeliveriesAreHarmless(RedisServer redis) throws Exception {
        List<PaymentConsumer> consumers = List.of(
                new PaymentConsumer(instance(redis), dataSource), new PaymentConsumer(instance(redis), dataSource));
        List<Payment> payments = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            payments.add(new Payment(UUID.randomUUID().toString(), account, i));
        }
        List<Future<Boolean>> results;
        ExecutorService broker = Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Callable<Boolean>> all = new ArrayList<>();
            for (Payment p : payments) {
                for (int copy = 0; copy < 3; copy++) {
                    for (PaymentConsumer consumer : consumers) {
                        all.add(() -> consumer.onMessage(p));
                    }
                }
            }
            Collections.shuffle(all, new java.util.Random(42));
            results = broker.invokeAll(all, 60, TimeUnit.SECONDS);
        } finally {
            broker.shutdownNow();
        }
        int firstDeliveries = 0;
        for (Future<Boolean> r : results) {
            firstDeliveries += r.get() ? 1 : 0;
        }
        assertThat(results).hasSize(120);
        assertThat(firstDeliveries).as("deliveries that did the work").isEqualTo(20);
        assertThat(balance()).as("1 + 2 + ... + 20 cents, each once").isEqualTo(210);
    }

    @Test
    @DisplayName("a delivery whose commit failed left nothing behind, and the redelivery credits it once")
    void aFailedDeliveryIsDoneByTheRedelivery(RedisServer redis) throws Exception {
        Payment payment = new Payment(UUID.randomUUID().toString(), account, 500);
        AtomicBoolean dropAtCommit = new AtomicBoolean(true);
        PaymentConsumer consumer = new PaymentConsumer(instance(redis), failingOnceAtCommit(dataSource, dropAtCommit));

        assertThatThrownBy(() -> consumer.onMessage(payment))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("connection dropped at commit");
        assertThat(balance()).as("the failed delivery's credit was rolled back").isZero();

        assertThat(consumer.onMessage(payment))
                .as("the redelivery does the work")
                .isTrue();
        assertThat(consumer.onMessage(payment))
                .as("a later redelivery does nothing")
                .isFalse();
        assertThat(balance()).isEqualTo(500);
    }

    /** A DataSource whose connections fail their first commit, as a connection that drops at commit would. */
    private static DataSource failingOnceAtCommit(PGSimpleDataSource real, AtomicBoolean fail) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (ds, m, args) -> {
                    Object result = invoke(m, real, args);
                    if (!m.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    return Proxy.newProxyInstance(
                            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (c, cm, cargs) -> {
                                if (cm.getName().equals("commit") && fail.getAndSet(false)) {
                                    throw new SQLException("connection dropped at commit", "08006");
                                }
                                return invoke(cm, connection, cargs);
                            });
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
