package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.LockOptions;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A measurement, not a timed test (off unless {@code -Dlockkit.measure.contention=true}): rounds of
 * 2 clients × 4 threads hammering one read/write lock (every tenth acquisition a write), each
 * acquisition a {@code tryLock} of 5 s, with no subscription linger so that each client's
 * subscription is made and dropped again and again. A lost wake-up leaves a waiter asleep until its
 * retry hint (the holder's 30 s lease) and shows as a failed {@code tryLock}; the rounds with one
 * are counted and printed (and must be none).
 *
 * <pre>mvn -pl lock-jedis -am verify -Dtest=ReadWriteContentionMeasurement -Dlockkit.measure.contention=true -Dsurefire.failIfNoSpecifiedTests=false -Drounds=40 -Dper=200</pre>
 */
@EnabledIfSystemProperty(named = "lockkit.measure.contention", matches = "true")
class ReadWriteContentionMeasurement {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    @DisplayName("contended read/write rounds: none with a waiter that waited 5 s")
    void rounds() throws Exception {
        RedisServer redis = REDIS.server();
        int rounds = Integer.getInteger("rounds", 20);
        int per = Integer.getInteger("per", 40);
        int stalledRounds = 0;
        for (int round = 0; round < rounds; round++) {
            AtomicInteger stalled = new AtomicInteger();
            long start = System.nanoTime();
            int done = round("contended-" + round, redis, per, stalled);
            System.out.printf(
                    "round %d: %d acquisitions, %d waits ran out, %d ms%n",
                    round, done, stalled.get(), (System.nanoTime() - start) / 1_000_000);
            stalledRounds += stalled.get() > 0 ? 1 : 0;
        }
        System.out.printf("rounds with a wait that ran out: %d of %d%n", stalledRounds, rounds);
        assertThat(stalledRounds).isZero();
    }

    private static int round(String name, RedisServer redis, int per, AtomicInteger stalled) throws Exception {
        List<DistributedLockFactory> clients = new ArrayList<>();
        AtomicInteger done = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                DistributedLockFactory client = DistributedLockFactory.builder(
                                JedisLockProvider.builder().uri(redis.uri()).build())
                        .subscriptionLinger(Duration.ZERO)
                        .defaultOptions(LockOptions.builder()
                                .watchdogLease(Duration.ofSeconds(30))
                                .build())
                        .build();
                clients.add(client);
                DistributedReadWriteLock rw = client.getReadWriteLock(name);
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    all.add(threads.submit(() -> {
                        for (int i = 0; i < per; i++) {
                            DistributedLock l = (i + thread) % 10 == 0 ? rw.writeLock() : rw.readLock();
                            if (!l.tryLock(Duration.ofSeconds(5), null)) {
                                stalled.incrementAndGet();
                                continue;
                            }
                            l.unlock();
                            done.incrementAndGet();
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : all) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            threads.shutdownNow();
            clients.forEach(DistributedLockFactory::close);
        }
        return done.get();
    }
}
