package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

@DisplayName("@Locked on Spring beans, over a real Redis (one Boot application for the class)")
class LockedOnSpringBeansTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static ConfigurableApplicationContext app;
    private static DistributedLockFactory factory;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
        @Bean
        Counters counters() {
            return new Counters();
        }

        @Bean
        AsyncWork asyncWork() {
            return new AsyncWork();
        }
    }

    @BeforeAll
    static void start(RedisServer redis) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        app = application.run("--lockkit.redis.uri=" + redis.uri(), "--spring.main.banner-mode=off");
        factory = app.getBean(DistributedLockFactory.class);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    @DisplayName("one starter and one property: the factory bean locks on the configured Redis")
    void factoryBeanLocksOnRedis(RedisServer redis) throws Exception {
        try (LockHandle held = factory.acquire("bean-check")) {
            assertThat(held.fencingToken()).isPositive();
            assertThat((List<?>) redis.command("KEYS", "*bean-check*")).isNotEmpty();
        }
    }

    @Test
    @DisplayName("concurrent calls of a @Locked method lose no update, one call inside at a time")
    void lockedCallsLoseNoUpdate() throws Exception {
        Counters counters = app.getBean(Counters.class);
        counters.reset();
        int threads = 6;
        int calls = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < calls; i++) {
                        counters.lockedIncrement();
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counters.value()).isEqualTo(threads * calls);
        assertThat(counters.mostInside()).isEqualTo(1);
    }

    @Test
    @DisplayName("control: the same increment without @Locked loses an update when two calls overlap")
    void unlockedCallsLoseUpdates() throws Exception {
        Counters counters = app.getBean(Counters.class);
        counters.reset();
        CyclicBarrier meet = new CyclicBarrier(2);
        ExecutorService two = Executors.newFixedThreadPool(2); // two threads: the calls must overlap
        try {
            Future<?> first = two.submit(() -> counters.unlockedIncrement(meet));
            Future<?> second = two.submit(() -> counters.unlockedIncrement(meet));
            first.get(30, TimeUnit.SECONDS);
            second.get(30, TimeUnit.SECONDS);
        } finally {
            two.shutdownNow();
        }
        assertThat(counters.value()).isEqualTo(1);
        assertThat(counters.mostInside()).isEqualTo(2);
    }

    @Test
    @DisplayName(
            "a CompletionStage method returns at once while its lock is busy, and holds it until the stage completes")
    void stageHoldsUntilCompletion() throws Exception {
        AsyncWork work = app.getBean(AsyncWork.class);
        CompletableFuture<String> result = new CompletableFuture<>();
        CompletionStage<String> stage;
        try (LockHandle busy = factory.acquire("stage")) {
            stage = work.stage(result); // does not wait for the lock the test holds
            assertThat(stage.toCompletableFuture()).isNotDone();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> work.bodies() > 0);
        assertThat(tryElsewhere("stage")).as("held while the stage runs").isEmpty();
        result.complete("done");
        assertThat(stage.toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo("done");
        await().atMost(Duration.ofSeconds(20)).until(() -> tryElsewhere("stage").isPresent());
    }

    @Test
    @DisplayName("a Mono method takes its lock per subscription, without blocking, and releases when the Mono ends")
    void monoHoldsPerSubscription() throws Exception {
        AsyncWork work = app.getBean(AsyncWork.class);
        int before = work.bodies();
        CompletableFuture<String> result = new CompletableFuture<>();
        Mono<String> mono = work.mono(result);
        assertThat(work.bodies()).as("lazy: nothing runs before a subscription").isEqualTo(before);
        assertThat(tryElsewhere("mono")).as("nor is the lock taken").isPresent();
        CompletableFuture<String> subscribed = mono.toFuture();
        await().atMost(Duration.ofSeconds(20)).until(() -> work.bodies() == before + 1);
        assertThat(tryElsewhere("mono")).as("held while the Mono runs").isEmpty();
        result.complete("value");
        assertThat(subscribed.get(20, TimeUnit.SECONDS)).isEqualTo("value");
        await().atMost(Duration.ofSeconds(20)).until(() -> tryElsewhere("mono").isPresent());
    }

    @Test
    @DisplayName("a Flux method holds its lock for the stream's whole life")
    void fluxHoldsForTheStream() throws Exception {
        AsyncWork work = app.getBean(AsyncWork.class);
        CompletableFuture<Integer> last = new CompletableFuture<>();
        Flux<Integer> flux = work.flux(last);
        CompletableFuture<List<Integer>> items = flux.collectList().toFuture();
        await().atMost(Duration.ofSeconds(20)).until(() -> tryElsewhere("flux").isEmpty());
        last.complete(3);
        assertThat(items.get(20, TimeUnit.SECONDS)).containsExactly(1, 2, 3);
        await().atMost(Duration.ofSeconds(20)).until(() -> tryElsewhere("flux").isPresent());
    }

    /** Tries {@code name} as another owner, releasing it at once when granted. */
    private static Optional<Long> tryElsewhere(String name) throws Exception {
        Optional<LockHandle> handle = factory.tryAcquire(name);
        handle.ifPresent(LockHandle::release);
        return handle.map(LockHandle::fencingToken);
    }
}
