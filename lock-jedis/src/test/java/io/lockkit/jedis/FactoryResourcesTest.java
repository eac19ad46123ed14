package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.MultiLockHandle;
import io.lockkit.jedis.support.ClientList;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What one factory over a single Redis node costs in threads and connections, and that neither
 * grows with the locks it holds or the names it waits on (ARCHITECTURE.md, JedisLockProvider's
 * Javadoc): the factory's two scheduler threads and at most two async threads, the provider's one
 * pub/sub thread and connection once a wait subscribes, and the lock and unlock calls of every
 * thread on at most two command connections (renewals borrow others from the same pool). Threads are told
 * apart by name (the factory's client id, the provider's thread factory), connections by the
 * client name in {@code CLIENT LIST}, so tests running beside this one do not count.
 */
@DisplayName("Resources of one factory")
class FactoryResourcesTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** Names one client waits on at once. */
    static final int WAITED_NAMES = 10_000;

    @Test
    @DisplayName(
            "one factory keeps its threads and connections from idle to 1,000 held locks, and waits on 10,000 names with one pub/sub connection")
    void threadsAndConnectionsDoNotGrowWithHoldsOrWaitedNames(RedisServer redis) throws InterruptedException {
        String run = "resources-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        Factory waiter = Factory.open(redis, run + "-waiter");
        Factory holder = Factory.open(redis, run + "-holder");
        try (DistributedLockFactory f = waiter.locks;
                DistributedLockFactory other = holder.locks) {
            Figures idle = waiter.figures(redis);
            List<LockHandle> held = new ArrayList<>();
            Map<Integer, Figures> holding = new HashMap<>();
            for (int count : new int[] {1, 100, 1000}) {
                while (held.size() < count) {
                    held.add(f.acquire(run + ":held:" + held.size()));
                }
                // The pub/sub connection (and its control channel) comes up on its own thread after the
                // first acquisition: wait for it, so that a slow start is not read as none.
                holding.put(
                        count,
                        await().atMost(Duration.ofSeconds(30))
                                .pollInterval(Duration.ofMillis(20))
                                .until(
                                        () -> waiter.figures(redis),
                                        h -> h.pubSubConnections() >= 1 && h.subscribedChannels() >= 1));
            }
            held.forEach(LockHandle::close);
            List<String> names = IntStream.range(0, WAITED_NAMES)
                    .mapToObj(i -> run + ":waited:" + i)
                    .toList();
            Figures waiting;
            try (MultiLockHandle all = other.acquireAll(names)) {
                List<CompletableFuture<LockHandle>> waits = new ArrayList<>(WAITED_NAMES);
                for (String name : names) {
                    waits.add(f.acquireAsync(name, LockOptions.waitAtMost(Duration.ofMinutes(2)))
                            .toCompletableFuture());
                }
                waiting = await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> waiter.figures(redis), w -> w.subscribedChannels() >= WAITED_NAMES);
                assertThat(waits).as("every wait still parked").noneMatch(CompletableFuture::isDone);
                // Closed before the holder releases: the waits end unanswered (nothing is granted).
                f.close();
                assertThat(waits).as("every wait ended by the close").allMatch(CompletableFuture::isDone);
                System.out.printf(
                        Locale.ROOT,
                        "factory resources (%s): idle %s; holding 1 %s; 100 %s; 1000 %s; waiting on %,d names %s%n",
                        redis.version(),
                        idle,
                        holding.get(1),
                        holding.get(100),
                        holding.get(1000),
                        WAITED_NAMES,
                        waiting);
            }
            // Idle: no pub/sub yet; the scheduler's threads are made with its first task.
            assertThat(idle.schedulerThreads()).as("idle scheduler threads").isBetween(0, 2);
            assertThat(idle.asyncThreads() + idle.providerThreads())
                    .as("idle async and pub/sub threads")
                    .isZero();
            assertThat(idle.pubSubConnections()).as("idle pub/sub connections").isZero();
            assertThat(idle.commandConnections()).as("idle command connections").isBetween(0, 2);
            for (Figures h : holding.values()) {
                assertThat(h.schedulerThreads())
                        .as("scheduler threads while holding")
                        .isBetween(1, 2);
                assertThat(h.asyncThreads())
                        .as("async threads while holding (no async call yet)")
                        .isZero();
                assertThat(h.providerThreads())
                        .as("pub/sub threads while holding")
                        .isEqualTo(1);
                assertThat(h.pubSubConnections())
                        .as("pub/sub connections while holding")
                        .isEqualTo(1);
                assertThat(h.subscribedChannels())
                        .as("holds subscribe to nothing but the control channel")
                        .isEqualTo(1);
                assertThat(h.commandConnections())
                        .as("command connections while holding")
                        .isBetween(1, 2);
            }
            assertThat(waiting.schedulerThreads())
                    .as("scheduler threads, 10,000 waits")
                    .isBetween(1, 2);
            assertThat(waiting.asyncThreads()).as("async threads, 10,000 waits").isBetween(1, 2);
            assertThat(waiting.providerThreads())
                    .as("pub/sub threads, 10,000 waited names")
                    .isEqualTo(1);
            assertThat(waiting.pubSubConnections())
                    .as("pub/sub connections, 10,000 waited names")
                    .isEqualTo(1);
            assertThat(waiting.subscribedChannels())
                    .as("one channel per waited name, and the control channel")
                    .isEqualTo(WAITED_NAMES + 1);
            assertThat(waiting.commandConnections())
                    .as("command connections, 10,000 waited names")
                    .isBetween(1, 2);
            assertThat(holder.providerThreadsMade.get())
                    .as("the holding factory never waited: no pub/sub thread")
                    .isZero();
        }
    }

    /** Threads (live, by kind) and connections (by kind) of one factory. */
    record Figures(
            int schedulerThreads,
            int asyncThreads,
            int providerThreads,
            int pubSubConnections,
            int commandConnections,
            int subscribedChannels) {}

    /** A factory whose threads and connections can be told from every other's. */
    record Factory(DistributedLockFactory locks, String clientName, AtomicInteger providerThreadsMade) {

        static Factory open(RedisServer redis, String clientName) {
            AtomicInteger made = new AtomicInteger();
            ThreadFactory threads = r -> {
                Thread t = new Thread(r, clientName + "-redis-" + made.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            JedisLockProvider provider = JedisLockProvider.builder()
                    .uri(redis.uri())
                    .clientName(clientName)
                    .threadFactory(threads)
                    .build();
            return new Factory(DistributedLockFactory.create(provider), clientName, made);
        }

        Figures figures(RedisServer redis) {
            String id = locks.clientId();
            int scheduler = 0;
            int async = 0;
            int provider = 0;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                String n = t.getName();
                if (n.equals("lockkit-scheduler-" + id)) {
                    scheduler++;
                } else if (n.equals("lockkit-async-" + id)) {
                    async++;
                } else if (n.startsWith(clientName + "-redis-")) {
                    provider++;
                }
            }
            int pubSub = 0;
            int commands = 0;
            int channels = 0;
            for (Map<String, String> c : ClientList.read(redis)) {
                if (!clientName.equals(c.get("name"))) {
                    continue;
                }
                int subscriptions = count(c, "sub") + count(c, "ssub") + count(c, "psub");
                if (subscriptions > 0 || c.getOrDefault("flags", "").contains("P")) {
                    pubSub++;
                    channels += subscriptions;
                } else {
                    commands++;
                }
            }
            return new Figures(scheduler, async, provider, pubSub, commands, channels);
        }
    }

    private static int count(Map<String, String> client, String field) {
        return Integer.parseInt(client.getOrDefault(field, "0"));
    }
}
