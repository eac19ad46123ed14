package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.cdi.Locked;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("closing the context lets a running @Locked method finish under its lock (the drain)")
class DrainTest {

    /** A job that runs until the test lets it end. */
    public static class LongJob {
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);
        private final List<String> order = new CopyOnWriteArrayList<>();

        // Methods, not fields: the test sees the bean through its proxy.
        public boolean awaitStarted() throws InterruptedException {
            return started.await(30, TimeUnit.SECONDS);
        }

        public void finish() {
            finish.countDown();
        }

        public List<String> order() {
            return order;
        }

        @Locked("long-job")
        public void run() throws InterruptedException {
            started.countDown();
            assertThat(finish.await(60, TimeUnit.SECONDS)).isTrue();
            order.add("job returned");
        }
    }

    @Test
    @DisplayName("close waits for the running method, whose release then succeeds, before the factory closes")
    void closeWaitsForTheRunningMethod() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockkitAutoConfiguration.class))
                .withPropertyValues("lockkit.provider=local", "lockkit.drain-timeout=60s")
                .withBean(LongJob.class)
                .run(c -> {
                    LongJob job = c.getBean(LongJob.class);
                    FutureTask<Void> call = new FutureTask<>(() -> {
                        job.run(); // throws LockLostException from its release if the lock went first
                        return null;
                    });
                    new Thread(call, "job").start();
                    assertThat(job.awaitStarted()).isTrue();
                    Thread closer = new Thread(
                            () -> {
                                c.getSourceApplicationContext().close();
                                job.order().add("context closed");
                            },
                            "closer");
                    closer.start();
                    // The closer waits in the drain (or, without one, has closed already).
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> !closer.isAlive() || closer.getState() == Thread.State.TIMED_WAITING);
                    job.finish();
                    call.get(30, TimeUnit.SECONDS);
                    closer.join(TimeUnit.SECONDS.toMillis(30));
                    assertThat(job.order()).containsExactly("job returned", "context closed");
                });
    }
}
