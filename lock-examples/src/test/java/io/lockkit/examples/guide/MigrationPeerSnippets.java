package io.lockkit.examples.guide;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The other libraries' side of the migration pages (docs/migrating-from-redisson.md,
 * docs/migrating-from-spring-integration.md, docs/migrating-from-shedlock.md): the code a reader
 * migrates from, compiled against Redisson, Spring Integration and ShedLock (lock-examples' test
 * dependencies), so a page cannot show an API those libraries do not have. Nothing here runs: the
 * pages make no claim about those libraries' behaviour that a run here would check, and starting
 * their clients would cost the module's tests seconds. {@link MigrationGuideTest} runs lockkit's side.
 */
final class MigrationPeerSnippets {

    private MigrationPeerSnippets() {}

    /** Stands for the protected work. */
    private static void ship(long order) {
        if (order <= 0) {
            throw new IllegalArgumentException("order must be positive: " + order);
        }
    }

    /** Redisson's plain lock, as the Redisson page shows it before its lockkit counterpart. */
    static void redissonLock(RedissonClient redisson) {
        // migrate:redisson-before-lock-begin
        RLock lock = redisson.getLock("orders:42");
        lock.lock(); // renewed by the watchdog (lockWatchdogTimeout, 30 s by default)
        try {
            ship(42);
        } finally {
            lock.unlock();
        }
        // migrate:redisson-before-lock-end
    }

    /** A lock of Spring Integration's Redis registry, as the Spring Integration page shows it. */
    static void springRegistryLock(RedisConnectionFactory connectionFactory) throws InterruptedException {
        // migrate:spring-before-lock-begin
        RedisLockRegistry registry = new RedisLockRegistry(connectionFactory, "orders"); // locks expire after 60 s
        Lock lock = registry.obtain("orders:42");
        if (lock.tryLock(5, TimeUnit.SECONDS)) {
            try {
                ship(42);
            } finally {
                lock.unlock(); // ConcurrentModificationException when the lock expired in Redis meanwhile
            }
        }
        // migrate:spring-before-lock-end
    }

    /** ShedLock's executor without Spring, as the ShedLock page shows it. */
    static void shedLockExecutor(LockProvider lockProvider, Runnable report) {
        // migrate:shedlock-before-executor-begin
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(lockProvider);
        executor.executeWithLock(
                report,
                new LockConfiguration(Instant.now(), "nightly-report", Duration.ofMinutes(30), Duration.ofMinutes(5)));
        // migrate:shedlock-before-executor-end
    }

    /** A scheduled Spring job under ShedLock, as the ShedLock page shows it. */
    static final class NightlyJob {

        private final Runnable report;

        NightlyJob(Runnable report) {
            this.report = report;
        }

        // migrate:shedlock-before-scheduled-begin
        @Scheduled(cron = "0 0 2 * * *")
        @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT30M", lockAtLeastFor = "PT5M")
        public void nightlyReport() {
            report.run();
        }
        // migrate:shedlock-before-scheduled-end
    }
}
