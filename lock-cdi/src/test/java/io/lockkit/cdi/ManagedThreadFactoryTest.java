package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("a Jakarta Concurrency ManagedThreadFactory supplies the background threads")
class ManagedThreadFactoryTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("the watchdog's and the Redis wake-up threads come from the container's factory")
    void backgroundThreadsAreManaged() throws Exception {
        ContainerThreads.MADE.clear();
        ContainerThreads.ASKED_BY.clear();
        WeldContainer app = Lockkit.start("managed-threads", ContainerThreads.class);
        int madeAtStart = ContainerThreads.MADE.size();
        try {
            DistributedLockFactory locks =
                    app.select(DistributedLockFactory.class).get();
            try (LockHandle hold = locks.acquire("renewed")) {
                // A wait subscribes to wake-ups, which starts the provider's pub/sub thread.
                assertThatThrownBy(() -> locks.acquire("renewed", LockOptions.waitAtMost(Duration.ofMillis(50))))
                        .isInstanceOf(LockNotAcquiredException.class);
            }
            assertThat(ContainerThreads.MADE.size())
                    .as("scheduler and pub/sub threads")
                    .isGreaterThanOrEqualTo(2);
            assertThat(ContainerThreads.MADE.size())
                    .as("the wait made the wake-up thread")
                    .isGreaterThan(madeAtStart);
            assertThat(ContainerThreads.ASKED_BY.subList(madeAtStart, ContainerThreads.ASKED_BY.size()))
                    .as(
                            "threads made after the start were asked for by lockkit's thread maker, not the request's thread")
                    .containsOnly("lockkit-thread-maker");
            assertThat(ContainerThreads.MADE.stream().filter(Thread::isAlive).map(Thread::getName))
                    .as("the container's threads carry lockkit's names while they run its work")
                    .isNotEmpty()
                    .allSatisfy(
                            name -> assertThat(name).matches("lockkit-(scheduler|redis)-\\d+|lockkit-thread-maker"));
        } finally {
            app.shutdown();
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ContainerThreads.MADE.stream().noneMatch(Thread::isAlive));
        assertThat(ContainerThreads.MADE)
                .as("each thread got the container's name back when lockkit's work ended")
                .allSatisfy(t -> assertThat(t.getName()).startsWith("managed-"));
    }
}
