package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.internal.Keys;
import io.lockkit.jedis.topology.RedisSentinelSetup;
import io.lockkit.spi.LockProvider.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Replica acknowledgement through Sentinel: a master with one replica. */
@DisplayName("JedisLockProvider on Redis Sentinel: replica acknowledgement")
class SentinelProviderTest {

    private static RedisSentinelSetup sentinel;
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        sentinel = RedisSentinelSetup.start();
    }

    @AfterAll
    static void stop() {
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private JedisLockProvider provider(int replicas) {
        var client = sentinel.newClient();
        closeables.add(client);
        JedisLockProvider p = JedisLockProvider.builder()
                .client(client)
                .replicaAcknowledgement(replicas, Duration.ofMillis(500))
                .build();
        closeables.add(p);
        return p;
    }

    @Test
    @DisplayName("an acquisition acknowledged by the replica is on the replica when it returns")
    void acknowledgedAcquisitionIsOnTheReplica() throws Exception {
        DistributedLockFactory locks = DistributedLockFactory.create(provider(1));
        closeables.add(locks);
        String name = "acknowledged:" + System.nanoTime();
        try (LockHandle hold = locks.acquire(name, LockOptions.noWait())) {
            assertThat(hold.isValid()).isTrue();
            assertThat(sentinel.replica().command("EXISTS", new Keys(JedisLockProvider.DEFAULT_KEY_PREFIX).base(name)))
                    .isEqualTo(1L);
        }
    }

    @Test
    @DisplayName("asking for more replicas than there are undoes the acquisition with a clear exception")
    void tooFewReplicasUndoTheAcquisition() {
        JedisLockProvider p = provider(2);
        String name = "unacknowledged:" + System.nanoTime();
        assertThatThrownBy(() -> p.tryAcquire(new LockRequest(name, "c:o", Duration.ofSeconds(30), Duration.ZERO)))
                .isInstanceOf(ReplicaAcknowledgementException.class)
                .hasMessageContaining("1 of 2 replicas")
                .hasMessageContaining(name);
        await().atMost(Duration.ofSeconds(2)).until(() -> p.inspect(name).isEmpty());
    }
}
