package io.lockkit.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.spring.integration.LockkitLockRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Runs lockkit's side of docs/spring-adapters.md as the page shows it ({@link SpringAdapterBeans}),
 * calling the bean methods as Spring would. Two factories over one {@link LocalLockProvider} play two
 * instances of an application; the adapters' own tests (lock-spring-integration, lock-shedlock) run
 * them on Redis and PostgreSQL.
 */
@DisplayName("docs/spring-adapters.md: lockkit's side as it shows it")
class SpringAdaptersGuideTest {

    private final LocalLockProvider backend = new LocalLockProvider();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final SpringAdapterBeans beans = new SpringAdapterBeans();

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private DistributedLockFactory instance() {
        DistributedLockFactory f = DistributedLockFactory.create(backend.newClient());
        toClose.add(f);
        return f;
    }

    @Test
    @DisplayName(
            "the registry bean's lock ships with a fencing token that grows from one instance's hold to the next's")
    void registryLockShipsWithItsToken() throws InterruptedException {
        List<Long> shipped = new CopyOnWriteArrayList<>();
        assertThat(SpringAdapterBeans.shipWithRegistry(beans.lockRegistry(instance()), shipped::add))
                .isTrue();
        assertThat(SpringAdapterBeans.shipWithRegistry(beans.lockRegistry(instance()), shipped::add))
                .isTrue();
        assertThat(shipped).hasSize(2);
        assertThat(shipped.get(1)).isGreaterThan(shipped.get(0));
    }

    @Test
    @DisplayName("the leader initiator bean over the registry makes its candidate leader, and stopping it ends that")
    void leaderInitiatorLeads() {
        LockkitLockRegistry registry = beans.lockRegistry(instance());
        LockRegistryLeaderInitiator initiator = beans.leaderInitiator(registry);
        initiator.start();
        try {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> initiator.getContext().isLeader());
        } finally {
            initiator.stop();
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !initiator.getContext().isLeader());
    }

    @Test
    @DisplayName("the ShedLock job gets its token; another instance skips the job within lockAtLeastFor")
    void shedLockJobGetsItsToken() throws Throwable {
        List<Long> tokens = new CopyOnWriteArrayList<>();
        SpringAdapterBeans.NightlyJob job = new SpringAdapterBeans.NightlyJob(tokens::add);
        // What @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT30M", lockAtLeastFor = "PT5M") configures:
        LockConfiguration config =
                new LockConfiguration(Instant.now(), "nightly-report", Duration.ofMinutes(30), Duration.ofMinutes(5));
        LockingTaskExecutor first = new DefaultLockingTaskExecutor(beans.lockProvider(instance()));
        LockingTaskExecutor second = new DefaultLockingTaskExecutor(beans.lockProvider(instance()));
        TaskResult<Object> ran = first.executeWithLock(
                () -> {
                    job.nightlyReport();
                    return "done";
                },
                config);
        assertThat(ran.wasExecuted()).isTrue();
        assertThat(tokens).hasSize(1);
        TaskResult<Object> skipped = second.executeWithLock(
                () -> {
                    job.nightlyReport();
                    return "done";
                },
                config);
        assertThat(skipped.wasExecuted())
                .as("held for lockAtLeastFor after the job ended")
                .isFalse();
        assertThat(tokens).hasSize(1);
    }
}
