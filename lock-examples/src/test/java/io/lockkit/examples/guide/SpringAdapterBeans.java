package io.lockkit.examples.guide;

import io.lockkit.DistributedLockFactory;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.shedlock.CurrentShedLock;
import io.lockkit.shedlock.LockkitLockProvider;
import io.lockkit.spring.integration.LockkitLock;
import io.lockkit.spring.integration.LockkitLockRegistry;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * lockkit's side of docs/spring-adapters.md: the beans an application declares to run Spring
 * Integration and ShedLock on lockkit. {@link SpringAdaptersGuideTest} calls them (as Spring would)
 * and runs what they return.
 */
final class SpringAdapterBeans {

    // spring-adapters:factory-bean-begin
    @Bean(destroyMethod = "close")
    DistributedLockFactory lockFactory(DataSource dataSource) {
        return DistributedLockFactory.create(JdbcLockProvider.builder() // or JedisLockProvider for Redis
                .dataSource(dataSource)
                .createSchema(true) // creates or upgrades the lockkit_locks table at start
                .build());
    }
    // spring-adapters:factory-bean-end

    // spring-adapters:registry-bean-begin
    @Bean
    LockkitLockRegistry lockRegistry(DistributedLockFactory lockFactory) {
        return new LockkitLockRegistry(lockFactory, "orders:"); // lock names are "orders:" + key
    }
    // spring-adapters:registry-bean-end

    // spring-adapters:leader-bean-begin
    @Bean
    LockRegistryLeaderInitiator leaderInitiator(LockkitLockRegistry lockRegistry) {
        return new LockRegistryLeaderInitiator(lockRegistry, new DefaultCandidate("node-1", "reports"));
    }
    // spring-adapters:leader-bean-end

    // spring-adapters:shedlock-bean-begin
    @Bean
    LockProvider lockProvider(DistributedLockFactory lockFactory) {
        return new LockkitLockProvider(lockFactory, "jobs:"); // lock names are "jobs:" + the job's name
    }
    // spring-adapters:shedlock-bean-end

    /** A registry's lock in use, with its fencing token; false when the lock stayed busy. */
    static boolean shipWithRegistry(LockkitLockRegistry registry, LongConsumer ship) throws InterruptedException {
        // spring-adapters:registry-use-begin
        LockkitLock lock = registry.obtain("42");
        if (!lock.tryLock(5, TimeUnit.SECONDS)) {
            return false;
        }
        try {
            ship.accept(lock.fencingToken()); // the resource refuses tokens older than the last it saw
        } finally {
            lock.unlock(); // ConcurrentModificationException (cause: LockLostException) if the hold was lost
        }
        // spring-adapters:registry-use-end
        return true;
    }

    /** A scheduled job under ShedLock that hands its token to the work it protects. */
    static final class NightlyJob {

        private final LongConsumer report;

        NightlyJob(LongConsumer report) {
            this.report = report;
        }

        // spring-adapters:shedlock-job-begin
        @Scheduled(cron = "0 0 2 * * *")
        @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT30M", lockAtLeastFor = "PT5M")
        public void nightlyReport() {
            long token = CurrentShedLock.handle().orElseThrow().fencingToken();
            report.accept(token); // e.g. stored with the report: a late, older run cannot overwrite it
        }
        // spring-adapters:shedlock-job-end
    }
}
