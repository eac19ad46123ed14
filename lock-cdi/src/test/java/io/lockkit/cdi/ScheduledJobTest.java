package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.se.SeContainer;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked(holdAtLeast): a job two instances schedule every 100 ms runs once per second")
class ScheduledJobTest {

    /** Each task its own thread: blocking tasks must not queue behind each other in the common pool. */
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** Start times of every run, from both instances. */
    static final List<Long> RUNS = new CopyOnWriteArrayList<>();

    @AfterEach
    void clear() {
        threads.shutdownNow();
        Lockkit.clearConfig();
    }

    /** A short job: the lock stays held for a second after it starts, whatever its duration. */
    @ApplicationScoped
    public static class ReportJob {
        @Locked(
                value = "report-job",
                waitTime = 0,
                whenBusy = WhenBusy.SKIP,
                holdAtLeast = 1000,
                holdAtLeastUnit = ChronoUnit.MILLIS)
        public void run() {
            RUNS.add(System.nanoTime());
        }
    }

    @Test
    @DisplayName("runs are at least a period apart, across instances, and keep happening")
    void runsOncePerPeriod(RedisServer redis) throws Exception {
        RUNS.clear();
        Lockkit.useRedis(redis);
        SeContainer a = Lockkit.start("job-a", ReportJob.class);
        SeContainer b = Lockkit.start("job-b", ReportJob.class);
        try {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3500);
            List<CompletableFuture<Integer>> schedulers = new ArrayList<>();
            for (SeContainer instance : List.of(a, b)) {
                ReportJob job = instance.select(ReportJob.class).get();
                schedulers.add(CompletableFuture.supplyAsync(
                        () -> {
                            int ticks = 0;
                            while (System.nanoTime() - end < 0) {
                                job.run();
                                ticks++;
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                            }
                            return ticks;
                        },
                        threads));
            }
            int ticks = 0;
            for (CompletableFuture<Integer> s : schedulers) {
                ticks += s.get(30, TimeUnit.SECONDS);
            }
            assertThat(ticks).as("the schedulers called the job many times").isGreaterThan(20);
            assertThat(RUNS).as("but it ran about once per second (3.5 s)").hasSizeBetween(2, 5);
            for (int i = 1; i < RUNS.size(); i++) {
                assertThat(TimeUnit.NANOSECONDS.toMillis(RUNS.get(i) - RUNS.get(i - 1)))
                        .as("gap between run %d and %d", i - 1, i)
                        .isGreaterThanOrEqualTo(900);
            }
        } finally {
            a.close();
            b.close();
        }
    }
}
