package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.weld.environment.se.Weld;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "a scheduled job that runs once per period across instances" (docs/recipes.md): two
 * instances (two Weld containers, then two factories) each call the job every 100 ms, and it runs
 * about once a second, its runs at least {@link #HOLD_AT_LEAST_MILLIS} apart.
 */
@DisplayName("recipe: a job every instance schedules runs once per period")
class ScheduledJobRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** The test's period is a second, so that it runs in seconds; a real job's is minutes or hours. */
    static final long HOLD_AT_LEAST_MILLIS = 1000;

    private static final Duration TICK = Duration.ofMillis(100);
    private static final Duration RUN_FOR = Duration.ofMillis(3500);
    /** Each instance calls the job this often: 3.5 s worth of ticks. */
    private static final int TICKS_PER_INSTANCE = (int) (RUN_FOR.toMillis() / TICK.toMillis());

    private static final System.Logger LOG = System.getLogger(ScheduledJobRecipeTest.class.getName());

    /** When each run started (System.nanoTime), whichever instance ran it. */
    static final List<Long> RUNS = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void configure(RedisServer redis) {
        Recipes.useConfig("lockkit.redis.uri", redis.uri());
    }

    @AfterAll
    static void clearConfig() {
        Recipes.clearConfig();
    }

    @BeforeEach
    void clearRuns() {
        RUNS.clear();
    }

    /** Stands for the job's real work. */
    @ApplicationScoped
    public static class ReportWriter {
        public void write() {
            RUNS.add(System.nanoTime());
        }
    }

    // guide:scheduled-cdi-begin
    @ApplicationScoped
    public static class NightlyReport {

        @Inject
        ReportWriter writer;

        /** Every instance's scheduler calls this each period; one call per period runs, the others return at once. */
        @Locked(
                value = "nightly-report",
                waitTime = 0,
                whenBusy = WhenBusy.SKIP,
                holdAtLeast = HOLD_AT_LEAST_MILLIS,
                holdAtLeastUnit = ChronoUnit.MILLIS)
        public void run() {
            writer.write();
        }
    }
    // guide:scheduled-cdi-end

    // guide:scheduled-plain-begin
    /** Runs job unless another instance started it less than holdAtLeast ago; never throws. */
    static void runOnce(DistributedLockFactory locks, String name, Duration holdAtLeast, Runnable job) {
        try {
            Optional<LockHandle> turn = locks.tryAcquire(name); // no wait: busy means another instance has it
            if (turn.isPresent()) {
                LockHandle hold = turn.get();
                long started = System.nanoTime();
                try {
                    job.run();
                } finally {
                    Duration rest = holdAtLeast.minusNanos(System.nanoTime() - started);
                    hold.releaseAfter(rest.isNegative() ? Duration.ZERO : rest); // the others skip it until then
                }
            }
        } catch (RuntimeException e) { // a task that throws is never run again by a ScheduledExecutorService
            LOG.log(System.Logger.Level.WARNING, "the job " + name + " failed", e);
        }
    }
    // guide:scheduled-plain-end

    @Test
    @DisplayName("@Locked(holdAtLeast) on two CDI containers: runs a period apart, however often both call it")
    void cdiJobRunsOncePerPeriod() throws Exception {
        try (SeContainer a = container("instance-a");
                SeContainer b = container("instance-b")) {
            NightlyReport first = a.select(NightlyReport.class).get();
            NightlyReport second = b.select(NightlyReport.class).get();
            ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
            AtomicInteger calls = new AtomicInteger();
            long start = System.nanoTime();
            try {
                for (NightlyReport job : List.of(first, second)) {
                    // Stands for each instance's own scheduler: an EJB timer, Quarkus @Scheduled, a cron thread.
                    scheduler.scheduleAtFixedRate(
                            () -> {
                                calls.incrementAndGet();
                                job.run();
                            },
                            0,
                            TICK.toMillis(),
                            TimeUnit.MILLISECONDS);
                }
                await().atMost(RUN_FOR.multipliedBy(5)).until(() -> calls.get() >= TICKS_PER_INSTANCE * 2);
            } finally {
                stop(scheduler);
            }
            assertRunsOncePerPeriod(System.nanoTime() - start);
        }
    }

    @Test
    @DisplayName("plain Java on a ScheduledExecutorService per instance: runs a period apart")
    void plainJavaJobRunsOncePerPeriod(RedisServer redis) throws Exception {
        Duration holdAtLeast = Duration.ofMillis(HOLD_AT_LEAST_MILLIS);
        Duration period = TICK;
        Runnable report = () -> RUNS.add(System.nanoTime());
        AtomicInteger ticks = new AtomicInteger();
        List<ScheduledExecutorService> schedulers = new ArrayList<>();
        long start = System.nanoTime();
        try (DistributedLockFactory first = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
                DistributedLockFactory second = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()))) {
            for (DistributedLockFactory locks : List.of(first, second)) {
                ScheduledExecutorService scheduler = new ScheduledThreadPoolExecutor(1) {
                    @Override
                    protected void beforeExecute(Thread t, Runnable r) {
                        ticks.incrementAndGet();
                    }
                };
                schedulers.add(scheduler);
                // guide:scheduled-plain-schedule-begin
                scheduler.scheduleAtFixedRate(
                        () -> runOnce(locks, "nightly-report", holdAtLeast, report),
                        0,
                        period.toMillis(),
                        TimeUnit.MILLISECONDS);
                // guide:scheduled-plain-schedule-end
            }
            await().atMost(RUN_FOR.multipliedBy(5)).until(() -> ticks.get() >= TICKS_PER_INSTANCE * 2);
        } finally {
            for (ScheduledExecutorService s : schedulers) {
                stop(s);
            }
        }
        assertRunsOncePerPeriod(System.nanoTime() - start);
    }

    @Test
    @DisplayName("plain Java: a job that throws keeps its period, and the scheduler keeps calling it")
    void aFailingJobKeepsItsPeriodAndItsSchedule(RedisServer redis) throws Exception {
        Duration holdAtLeast = Duration.ofMillis(HOLD_AT_LEAST_MILLIS);
        try (DistributedLockFactory locks = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()))) {
            Runnable failing = () -> {
                RUNS.add(System.nanoTime());
                throw new IllegalStateException("the report's database is down");
            };
            runOnce(locks, "failing-report", holdAtLeast, failing); // logs, does not throw
            runOnce(locks, "failing-report", holdAtLeast, failing); // within the period: skipped
            assertThat(RUNS).hasSize(1);
            assertThat(locks.operations().inspect("failing-report"))
                    .as("held for the rest of the period")
                    .isPresent();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> locks.operations().inspect("failing-report").isEmpty());
            runOnce(locks, "failing-report", holdAtLeast, failing);
            assertThat(RUNS).as("the next period runs it again").hasSize(2);
        }
    }

    private static SeContainer container(String id) {
        return new Weld(id)
                .addBeanClasses(NightlyReport.class, ReportWriter.class)
                .initialize();
    }

    private static void stop(ScheduledExecutorService scheduler) throws InterruptedException {
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Runs start at least the hold apart, and about one per hold elapsed. */
    private static void assertRunsOncePerPeriod(long elapsedNanos) {
        long periods = TimeUnit.NANOSECONDS.toMillis(elapsedNanos) / HOLD_AT_LEAST_MILLIS;
        assertThat(RUNS)
                .as("runs in %d ms of calls every %d ms by two instances", elapsedNanos / 1_000_000, TICK.toMillis())
                .hasSizeBetween(2, (int) periods + 1);
        for (int i = 1; i < RUNS.size(); i++) {
            assertThat(TimeUnit.NANOSECONDS.toMillis(RUNS.get(i) - RUNS.get(i - 1)))
                    .as("gap between run %d and run %d", i - 1, i)
                    .isGreaterThanOrEqualTo(HOLD_AT_LEAST_MILLIS - 100);
        }
    }
}
