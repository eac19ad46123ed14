package io.lockkit.jedis.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.jedis.JedisLockProviderBuilder;
import io.lockkit.jedis.support.Closer;
import io.lockkit.jedis.topology.RedisSentinelSetup;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fault 5: Sentinel fails the master over ({@code SENTINEL FAILOVER}) while clients hold locks.
 * Replication is asynchronous, so a hold can be missing on the promoted replica; its holder must
 * be told. A hold taken with replica acknowledgement ({@code WAIT}) is on the replica before the
 * acquisition returns, so it survives.
 *
 * <p>The missing hold is made deterministic by deleting its key on the replica alone (made
 * writable for that moment), which is what a write that had not yet replicated looks like.
 */
@Tag("fault")
@DisplayName("Fault: Sentinel failover during holds")
class SentinelFailoverFaultTest {

    /** Long enough for the clients to follow the switch to the new master without losing a hold that is there. */
    private static final Duration LEASE = Duration.ofSeconds(5);

    private static RedisSentinelSetup sentinel;

    private final Closer closer = new Closer();

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
    void cleanUp() throws Exception {
        closer.close();
    }

    private DistributedLockFactory client(int replicas, Map<String, LockLostException> heard) {
        var jedis = closer.add(sentinel.newClient());
        JedisLockProviderBuilder b = JedisLockProvider.builder().client(jedis);
        if (replicas > 0) {
            b.replicaAcknowledgement(replicas, Duration.ofMillis(500));
        }
        return closer.add(Faults.factory(b.build(), LEASE, e -> heard.put(e.lockName(), e)));
    }

    @Test
    @DisplayName("a hold missing on the new master is reported; holds acknowledged by the replica survive")
    void missingHoldIsReportedAndAcknowledgedHoldsSurvive() throws Exception {
        Map<String, LockLostException> heard = new ConcurrentHashMap<>();
        DistributedLockFactory plain = client(0, heard);
        DistributedLockFactory acknowledged = client(1, heard);
        DistributedLockFactory observer = client(0, new ConcurrentHashMap<>());

        String missing = Faults.name("sentinel-unreplicated");
        LockHandle lost = plain.acquire(missing, LockOptions.noWait());
        loseOnReplica(sentinel.replica(), Faults.lockKey(missing));
        List<LockHandle> survivors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            survivors.add(acknowledged.acquire(Faults.name("sentinel-acknowledged"), LockOptions.noWait()));
        }
        for (LockHandle h : survivors) {
            assertThat(sentinel.replica().command("EXISTS", Faults.lockKey(h.name())))
                    .isEqualTo(1L);
        }

        long start = System.nanoTime();
        RedisServer newMaster = sentinel.failover();
        long failedOver = System.nanoTime();
        LockLostException loss = lost.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        long toldAfter = Faults.millisSince(failedOver);
        assertThat(loss.lockName()).isEqualTo(missing);
        assertThat(heard).containsKey(missing);
        assertThat(lost.isValid()).isFalse();
        assertThatThrownBy(lost::release).isInstanceOf(LockLostException.class);

        // A full lease after the switch: the survivors were renewed on the new master meanwhile.
        Thread.sleep(LEASE.toMillis() + 500);
        for (LockHandle h : survivors) {
            assertThat(h.isValid()).as("%s survives the failover", h.name()).isTrue();
            assertThat(newMaster.command("EXISTS", Faults.lockKey(h.name()))).isEqualTo(1L);
            assertThat(observer.tryAcquire(h.name()))
                    .as("%s is still exclusive", h.name())
                    .isEmpty();
        }
        assertThat(heard).containsOnlyKeys(missing);
        try (LockHandle next = observer.acquire(missing, LockOptions.noWait())) {
            assertThat(next.fencingToken()).isGreaterThan(lost.fencingToken());
        }
        survivors.forEach(LockHandle::release);
        System.out.printf(
                "sentinel failover took %d ms; the holder of the unreplicated hold was told %d ms after it;"
                        + " %d acknowledged holds survived%n",
                TimeUnit.NANOSECONDS.toMillis(failedOver - start), toldAfter, survivors.size());
    }

    /** Deletes {@code key} on {@code replica} only: the replica never got the write, as under replication lag. */
    static void loseOnReplica(RedisServer replica, String key) {
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> replica.command("EXISTS", key).equals(1L));
        replica.command("CONFIG", "SET", "replica-read-only", "no");
        try {
            assertThat(replica.command("DEL", key)).isEqualTo(1L);
        } finally {
            replica.command("CONFIG", "SET", "replica-read-only", "yes");
        }
    }
}
