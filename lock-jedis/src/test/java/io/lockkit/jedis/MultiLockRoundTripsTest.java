package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.MultiLockHandle;
import io.lockkit.testkit.redis.CommandMonitor;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A multi-lock's round trips on a single Redis: its members attempted in one pipelined write and
 * released in one, counted by the provider's batcher (round trips) and {@link CommandMonitor}
 * (commands); and what the batched path must still get right (a busy member, a flushed script cache).
 */
class MultiLockRoundTripsTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** The name the counted provider gives its connections; {@link CommandMonitor} counts only theirs. */
    private static final String COUNTED = "counted-multi";

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private RedisServer redis;
    private JedisLockProvider provider;
    private DistributedLockFactory locks;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        provider =
                JedisLockProvider.builder().uri(redis.uri()).clientName(COUNTED).build();
        locks = DistributedLockFactory.create(provider);
        closeables.add(locks);
        closeables.add(provider);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private DistributedLockFactory other() {
        DistributedLockFactory f = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
        closeables.add(0, f);
        return f;
    }

    private static List<String> names(int n) {
        String base = "multi:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        return java.util.stream.IntStream.range(0, n)
                .mapToObj(i -> base + ":" + i)
                .toList();
    }

    @Test
    @DisplayName("an uncontended multi-lock of three names and its release cost two round trips of six commands")
    void uncontendedMultiLockOfThreeNamesIsTwoRoundTrips() throws Exception {
        locks.acquireAll(names(3), LockOptions.noWait()).release(); // warm the pool up
        CommandMonitor monitor = CommandMonitor.start(redis, COUNTED);
        closeables.add(monitor);
        long before = ProviderProbe.batches(provider);
        for (int i = 0; i < 10; i++) {
            MultiLockHandle all = locks.acquireAll(names(3), LockOptions.waitAtMost(Duration.ofSeconds(5)));
            assertThat(all.isValid()).isTrue();
            all.release();
        }
        long batches = ProviderProbe.batches(provider) - before;
        Map<String, Long> sent = monitor.stop();
        long scripts = sent.getOrDefault("evalsha", 0L) + sent.getOrDefault("eval", 0L);
        long commands = sent.values().stream().mapToLong(Long::longValue).sum();
        System.out.printf(
                "uncontended acquireAll(3) + release: %.1f round trips, %.1f commands (%.1f script calls)%n",
                batches / 10.0, commands / 10.0, scripts / 10.0);
        assertThat(batches)
                .as("round trips for 10 acquireAll + release of 3 names")
                .isEqualTo(20);
        assertThat(scripts)
                .as("script calls for 10 acquireAll + release of 3 names")
                .isEqualTo(60);
        // Connection upkeep that may fall into the window on a busy machine is no per-call cost.
        assertThat(commands - scripts).as("other commands in that time").isLessThanOrEqualTo(2);
    }

    @Test
    @DisplayName("a busy middle name on Redis is waited for, and every name is held in the end")
    void aBusyMiddleNameIsAwaitedAndEveryNameHeldInTheEnd() throws Exception {
        List<String> names = names(3);
        DistributedLockFactory other = other();
        LockHandle middle = other.acquire(names.get(1));
        CompletableFuture<MultiLockHandle> all = CompletableFuture.supplyAsync(() -> {
            try {
                return locks.acquireAll(names, LockOptions.waitAtMost(Duration.ofSeconds(60)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> other.tryAcquire(names.get(2))
                        .map(h -> {
                            h.release();
                            return true;
                        })
                        .orElse(false));
        assertThat(other.tryAcquire(names.get(0)))
                .as("the first name stays held meanwhile")
                .isEmpty();

        middle.release();
        MultiLockHandle handle = all.get(60, TimeUnit.SECONDS);

        assertThat(handle.names()).containsExactlyElementsOf(names);
        for (String name : names) {
            assertThat(other.tryAcquire(name)).as("%s is held", name).isEmpty();
        }
        handle.release();
        for (String name : names) {
            other.tryAcquire(name)
                    .orElseThrow(() -> new AssertionError(name + " is free"))
                    .release();
        }
    }

    @Test
    @DisplayName("after SCRIPT FLUSH the batched attempt and release teach the scripts in one more round trip each")
    void aFlushedScriptCacheCostsOneMoreRoundTripEach() throws Exception {
        locks.acquireAll(names(3), LockOptions.noWait()).release(); // warm the pool up
        redis.command("SCRIPT", "FLUSH");
        List<String> names = names(3);
        long before = ProviderProbe.batches(provider);

        MultiLockHandle all = locks.acquireAll(names, LockOptions.noWait());
        assertThat(ProviderProbe.batches(provider) - before)
                .as("EVALSHA refused, then EVAL")
                .isEqualTo(2);
        DistributedLockFactory other = other();
        for (String name : names) {
            assertThat(other.tryAcquire(name)).as("%s is held", name).isEmpty();
        }
        long releasing = ProviderProbe.batches(provider);
        all.release();
        assertThat(ProviderProbe.batches(provider) - releasing).isEqualTo(2);
        for (String name : names) {
            other.tryAcquire(name)
                    .orElseThrow(() -> new AssertionError(name + " is free"))
                    .release();
        }
    }
}
