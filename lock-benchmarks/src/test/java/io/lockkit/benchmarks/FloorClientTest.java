package io.lockkit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.benchmarks.BenchClient.BenchLock;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FloorClientTest {

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void excludesAcrossClientsAndThreads() throws InterruptedException {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] counter = {0};
        List<Thread> threads = new ArrayList<>();
        try (FloorClient a = new FloorClient(redis.uri(), "test-floor-a");
                FloorClient b = new FloorClient(redis.uri(), "test-floor-b")) {
            for (FloorClient client : List.of(a, b)) {
                for (int t = 0; t < 4; t++) {
                    BenchLock lock = client.lock("exclusion");
                    threads.add(new Thread(() -> {
                        for (int i = 0; i < 100; i++) {
                            lock.lock();
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            counter[0]++;
                            inside.decrementAndGet();
                            lock.unlock();
                        }
                    }));
                }
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        assertThat(overlaps).hasValue(0);
        assertThat(counter[0]).isEqualTo(800);
    }

    @Test
    void aReleaseWakesAWaiterLongBeforeTheLeaseEnds() throws InterruptedException {
        try (FloorClient a = new FloorClient(redis.uri(), "test-floor-a");
                FloorClient b = new FloorClient(redis.uri(), "test-floor-b")) {
            BenchLock holder = a.lock("wake-up");
            holder.lock();
            CountDownLatch acquired = new CountDownLatch(1);
            Thread waiter = new Thread(() -> {
                BenchLock lock = b.lock("wake-up");
                lock.lock();
                acquired.countDown();
                lock.unlock();
            });
            waiter.start();
            Thread.sleep(200);
            long released = System.nanoTime();
            holder.unlock();
            assertThat(acquired.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                    .isLessThan(FloorClient.LEASE.toMillis() / 10);
            waiter.join();
        }
    }
}
