package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.arjuna.ats.jta.cdi.TransactionExtension;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.inject.se.SeContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked wraps @Transactional (Narayana): lock before begin, release after completion")
class TransactionOrderingTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private SeContainer app;

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @BeforeEach
    void start() {
        Ledger.EVENTS.clear();
        // Narayana's extension registers @Transactional (Lockkit adds only the extensions named).
        Bookings.reset();
        app = Lockkit.deployment(
                        Ledger.class,
                        Ledger.Inner.class,
                        Ledger.RecordingBackend.class,
                        Bookings.class,
                        Bookings.Seats.class)
                .extension(new TransactionExtension())
                .start("transactions");
    }

    @AfterEach
    void stop() {
        app.close();
    }

    @Test
    @DisplayName("the lock is taken before the transaction begins and released after it committed")
    void lockWrapsACommit() throws Exception {
        app.select(Ledger.class).get().post("acct-1");
        assertThat(Ledger.EVENTS)
                .containsExactly(
                        "lock taken, transaction none",
                        "method runs, transaction active",
                        "transaction completing",
                        "transaction committed",
                        "lock released, transaction none");
    }

    @Test
    @DisplayName("the lock is released after the transaction rolled back")
    void lockWrapsARollback() {
        assertThatThrownBy(() -> app.select(Ledger.class).get().failingPost("acct-2"))
                .hasMessage("insufficient funds");
        assertThat(Ledger.EVENTS)
                .containsExactly("lock taken, transaction none", "method fails", "lock released, transaction none");
    }

    @Test
    @DisplayName("a @Locked method called inside a transaction keeps its lock until the transaction committed")
    void lockInsideATransactionCoversTheCommit() throws Exception {
        app.select(Ledger.class).get().postInside("acct-3");
        // Released in the transaction's afterCompletion: interposed synchronizations (ours) hear of
        // the outcome before ordinary ones, such as the test's recorder.
        assertThat(Ledger.EVENTS)
                .containsExactly(
                        "lock taken, transaction active",
                        "method runs, transaction active",
                        "transaction completing",
                        "lock released, transaction committed",
                        "transaction committed");
    }

    @Test
    @DisplayName("a @Locked method called inside a transaction keeps its lock until the transaction rolled back")
    void lockInsideATransactionCoversTheRollback() {
        assertThatThrownBy(() -> app.select(Ledger.class).get().failingPostInside("acct-4"))
                .hasMessage("insufficient funds");
        assertThat(Ledger.EVENTS)
                .containsExactly(
                        "lock taken, transaction active",
                        "method fails",
                        "lock released, transaction rolled back",
                        "transaction rolled back");
    }

    @Test
    @DisplayName(
            "a later @Locked call of the same name in the same transaction joins the hold instead of waiting for it")
    void secondCallInTheTransactionJoinsTheHold() throws Exception {
        app.select(Ledger.class).get().postTwiceInside("acct-5");
        // Each call registers the test's recorder; the lock is taken twice (reentrant) and released
        // twice, both after the commit.
        assertThat(Ledger.EVENTS)
                .containsExactly(
                        "lock taken, transaction active",
                        "method runs, transaction active",
                        "lock taken, transaction active",
                        "method runs, transaction active",
                        "transaction completing",
                        "transaction completing",
                        "lock released, transaction committed",
                        "lock released, transaction committed",
                        "transaction committed",
                        "transaction committed");
    }

    @Test
    @DisplayName(
            "count-then-insert inside transactions: 8 threads x 5 seats, each seat booked once, commits and rollbacks alike")
    void concurrentBookingsNeverDoubleBook() throws Exception {
        Bookings bookings = app.select(Bookings.class).get();
        int seats = 5;
        int threads = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int seat = 0; seat < seats; seat++) {
                        if (thread == 0) {
                            try {
                                bookings.bookThenFail("seat-" + seat);
                            } catch (IllegalStateException expected) {
                                // rolled back: books nothing
                            }
                        }
                        bookings.book("seat-" + seat);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (java.util.concurrent.Future<?> f : done) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(Bookings.COMMITTED)
                .as("each seat booked exactly once")
                .hasSize(seats)
                .doesNotHaveDuplicates();
    }
}
