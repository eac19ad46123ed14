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
import jakarta.enterprise.inject.se.SeContainer;
import java.time.Duration;
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
        SeContainer app = Lockkit.start("managed-threads", ContainerThreads.class);
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
            app.close();
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ContainerThreads.MADE.stream().noneMatch(Thread::isAlive));
        assertThat(ContainerThreads.MADE)
                .as("each thread got the container's name back when lockkit's work ended")
                .allSatisfy(t -> assertThat(t.getName()).startsWith("managed-"));
    }

    @Test
    @DisplayName(
            "managed threads that run only once the application has started (Open Liberty) do not hold the start up;"
                    + " threads made later come from the thread maker")
    void startDoesNotWaitForManagedThreadsToRun() throws Exception {
        GatedContainerThreads.reset();
        String starter = Thread.currentThread().getName();
        long began = System.nanoTime();
        SeContainer app = Lockkit.start("gated-threads", GatedContainerThreads.class);
        try {
            assertThat(Duration.ofNanos(System.nanoTime() - began))
                    .as("the start did not wait for the thread maker (it gives up after 10 s)")
                    .isLessThan(Duration.ofSeconds(9));
            int madeAtStart = GatedContainerThreads.MADE.size();
            assertThat(GatedContainerThreads.ASKED_BY)
                    .as("threads made during the start: asked for by the starting thread")
                    .containsOnly(starter);
            GatedContainerThreads.started.countDown(); // the server lets its managed threads run
            DistributedLockFactory locks =
                    app.select(DistributedLockFactory.class).get();
            try (LockHandle hold = locks.acquire("gated")) {
                assertThatThrownBy(() -> locks.acquire("gated", LockOptions.waitAtMost(Duration.ofMillis(50))))
                        .isInstanceOf(LockNotAcquiredException.class);
            }
            assertThat(GatedContainerThreads.ASKED_BY.subList(madeAtStart, GatedContainerThreads.ASKED_BY.size()))
                    .as("the wake-up thread, made after the start, was asked for by lockkit's thread maker")
                    .isNotEmpty()
                    .containsOnly("lockkit-thread-maker");
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName(
            "threads of a container that runs them only once the start is over (Open Liberty) carry lockkit's names"
                    + " and are daemon threads from the moment they are made, not from their first run")
    void containerThreadsAreNamedAndDaemonBeforeTheyRun() throws Exception {
        GatedContainerThreads.reset();
        SeContainer app = Lockkit.start("gated-names", GatedContainerThreads.class);
        try {
            assertThat(GatedContainerThreads.MADE)
                    .as("made during the start, none of them run yet (the gate is closed)")
                    .isNotEmpty()
                    .allSatisfy(t -> {
                        assertThat(t.getName()).matches("lockkit-(scheduler|redis)-\\d+|lockkit-thread-maker");
                        assertThat(t.isDaemon())
                                .as(t.getName() + " is a daemon thread")
                                .isTrue();
                    })
                    .anySatisfy(t -> assertThat(t.getName()).startsWith("lockkit-scheduler-"));
        } finally {
            GatedContainerThreads.started.countDown();
            app.close();
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> GatedContainerThreads.MADE.stream().noneMatch(Thread::isAlive));
        assertThat(GatedContainerThreads.MADE)
                .as("each thread got the container's name back when lockkit's work ended")
                .allSatisfy(t -> assertThat(t.getName()).startsWith("gated-"));
    }

    @Test
    @DisplayName("with managed threads held back until the start is over, a wrong URI still fails the start at once")
    void wrongUriFailsTheStartWhileManagedThreadsAreHeldBack() throws Exception {
        GatedContainerThreads.reset();
        int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Lockkit.useConfig(java.util.Map.of("lockkit.redis.uri", "redis://127.0.0.1:" + closed));
        try {
            long began = System.nanoTime();
            assertThatThrownBy(() -> Lockkit.start("gated-wrong-uri", GatedContainerThreads.class)
                            .close())
                    .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .startsWith("lockkit: the lock backend did not answer at application start")
                                    .contains("lockkit.redis.uri = 'redis://127.0.0.1:" + closed + "'")));
            assertThat(Duration.ofNanos(System.nanoTime() - began))
                    .as("failed by the backend check, not by a thread maker's timeout")
                    .isLessThan(Duration.ofSeconds(9));
        } finally {
            GatedContainerThreads.started.countDown();
            Lockkit.useRedis(REDIS.server());
        }
    }

    @Test
    @DisplayName("without a container's thread factory, lockkit's own threads are daemon threads")
    void ownThreadsAreDaemons() throws Exception {
        SeContainer app = Lockkit.start("own-threads", LockUser.class);
        try {
            DistributedLockFactory locks =
                    app.select(DistributedLockFactory.class).get();
            try (LockHandle hold = locks.acquire("own")) {
                assertThatThrownBy(() -> locks.acquire("own", LockOptions.waitAtMost(Duration.ofMillis(50))))
                        .isInstanceOf(LockNotAcquiredException.class);
            }
            java.util.List<Thread> lockkit = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("lockkit"))
                    .toList();
            assertThat(lockkit)
                    .as("scheduler and Redis wake-up threads")
                    .extracting(Thread::getName)
                    .anyMatch(n -> n.startsWith("lockkit-scheduler"))
                    .anyMatch(n -> n.startsWith("lockkit-redis"));
            assertThat(lockkit)
                    .allSatisfy(t -> assertThat(t.isDaemon())
                            .as(t.getName() + " is a daemon thread")
                            .isTrue());
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("a start that fails over a bad value leaves no container thread of lockkit's running")
    void failedStartStopsTheThreadMaker() throws Exception {
        ContainerThreads.MADE.clear();
        ContainerThreads.ASKED_BY.clear();
        Lockkit.useRedis(REDIS.server(), "lockkit.redis.timeout", "soon");
        try {
            assertThatThrownBy(() -> Lockkit.start("failed-start-threads", ContainerThreads.class)
                            .close())
                    .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                            .anySatisfy(m -> assertThat(m).contains("lockkit.redis.timeout = 'soon'")));
            assertThat(ContainerThreads.MADE)
                    .as("the thread maker was made at start")
                    .isNotEmpty();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                            () -> assertThat(ContainerThreads.MADE.stream().filter(Thread::isAlive))
                                    .as("container threads still running lockkit's work")
                                    .isEmpty());
        } finally {
            Lockkit.useRedis(REDIS.server());
        }
    }
}
