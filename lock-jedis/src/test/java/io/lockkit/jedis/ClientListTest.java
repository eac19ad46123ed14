package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.support.ClientList;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What an operator sees of lockkit's connections in Redis' {@code CLIENT LIST}. */
@DisplayName("CLIENT LIST tells which instance each of lockkit's connections belongs to")
class ClientListTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    @DisplayName("the command and pub/sub connections carry the factory's client id as their name")
    void connectionsCarryTheClientId(RedisServer redis) throws InterruptedException {
        try (DistributedLockFactory first = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
                DistributedLockFactory second = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()))) {
            useCommandAndPubSubConnections(first);
            useCommandAndPubSubConnections(second);
            List<Map<String, String>> clients = ClientList.read(redis);
            for (DistributedLockFactory f : List.of(first, second)) {
                List<Map<String, String>> named = clients.stream()
                        .filter(c -> f.clientId().equals(c.get("name")))
                        .toList();
                assertThat(named)
                        .as("connections named %s in %s", f.clientId(), clients)
                        .anySatisfy(
                                c -> assertThat(subscriptions(c)).as("pub/sub").isPositive())
                        .anySatisfy(
                                c -> assertThat(subscriptions(c)).as("commands").isZero());
            }
            assertThat(clients)
                    .as("no connection left with the name every JVM used to share")
                    .noneSatisfy(c -> assertThat(c.get("name")).isEqualTo("lockkit"));
        }
    }

    @Test
    @DisplayName("a name the application gives is kept, whatever the factory's client id")
    void aGivenNameIsKept(RedisServer redis) throws InterruptedException {
        String given =
                "orders-worker-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        JedisLockProvider provider =
                JedisLockProvider.builder().uri(redis.uri()).clientName(given).build();
        try (DistributedLockFactory f = DistributedLockFactory.create(provider)) {
            useCommandAndPubSubConnections(f);
            List<Map<String, String>> clients = ClientList.read(redis);
            assertThat(clients.stream().filter(c -> given.equals(c.get("name"))))
                    .as("connections named %s in %s", given, clients)
                    .hasSizeGreaterThanOrEqualTo(2);
            assertThat(clients).noneSatisfy(c -> assertThat(c.get("name")).isEqualTo(f.clientId()));
        }
    }

    /** A lock held, and a wait for it that times out: a command connection and the pub/sub one are open. */
    private static void useCommandAndPubSubConnections(DistributedLockFactory f) throws InterruptedException {
        String name = "client-list:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        try (LockHandle held = f.acquire(name)) {
            assertThatThrownBy(() -> f.acquire(name, LockOptions.waitAtMost(Duration.ofMillis(100))))
                    .isInstanceOf(LockNotAcquiredException.class);
        }
    }

    /** The channels a client is subscribed to, classic and sharded ({@code ssub} on Redis 7). */
    private static int subscriptions(Map<String, String> client) {
        return Integer.parseInt(client.getOrDefault("sub", "0")) + Integer.parseInt(client.getOrDefault("ssub", "0"));
    }
}
