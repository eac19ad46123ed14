package io.lockkit.cdi;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;

import com.arjuna.ats.jta.cdi.TransactionExtension;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("@Locked wraps @Transactional (Narayana): lock before begin, release after completion")
class TransactionOrderingTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private WeldContainer app;

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
        // Weld SE loads portable extensions only with discovery on; Narayana's registers @Transactional.
        app = Lockkit.weld(Ledger.class, Ledger.RecordingBackend.class)
                .addExtension(new TransactionExtension())
                .containerId("transactions")
                .initialize();
    }

    @AfterEach
    void stop() {
        app.shutdown();
    }

    @Test
    @DisplayName("the lock is taken before the transaction begins and released after it committed")
    void lockWrapsACommit() throws Exception {
        app.select(Ledger.class).get().post("acct-1");
        assertThat(Ledger.EVENTS).containsExactly(
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
        assertThat(Ledger.EVENTS).containsExactly(
                "lock taken, transaction none",
                "method fails",
                "lock released, transaction none");
    }
}
