package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.cdi.CurrentLock;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
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

@DisplayName("@DistributedBulkhead and CurrentLock on Spring beans, over a real Redis")
class BulkheadAndCurrentLockTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static ConfigurableApplicationContext app;
    private static Partner partner;
    private static DistributedLockFactory factory;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
        @Bean
        Partner partner() {
            return new Partner();
        }
    }

    @BeforeAll
    static void start(RedisServer redis) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        app = application.run("--lockkit.redis.uri=" + redis.uri(), "--spring.main.banner-mode=off");
        partner = app.getBean(Partner.class);
        factory = app.getBean(DistributedLockFactory.class);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    @DisplayName(
            "a bulkhead of capacity 2 lets two calls in and refuses a third at once, then lets it in once one ended")
    void bulkheadBoundsTheCallsInFlight() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch inside = new CountDownLatch(2);
        CountDownLatch done = new CountDownLatch(1);
        try {
            List<Future<Boolean>> calls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                calls.add(pool.submit(() -> partner.call(inside, done)));
            }
            assertThat(inside.await(30, TimeUnit.SECONDS))
                    .as("two calls inside")
                    .isTrue();

            assertThatThrownBy(() -> partner.call(new CountDownLatch(1), new CountDownLatch(0)))
                    .as("a third call while two are in flight")
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("partner-api");

            done.countDown();
            for (Future<Boolean> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(partner.call(new CountDownLatch(1), new CountDownLatch(0)))
                    .as("a call once the others ended")
                    .isTrue();
        } finally {
            done.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("CurrentLock gives a @Locked method its hold: the name from the template and a fencing token")
    void currentLockGivesTheMethodItsHold() {
        LockHandle first = partner.job("7");
        LockHandle second = partner.job("7");

        assertThat(first.name()).isEqualTo("job:7");
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(first.isValid()).as("released when the method returned").isFalse();
        assertThat(CurrentLock.handle()).as("outside a @Locked method").isEmpty();
        assertThat(factory.tryAcquire("job:7")).as("free after the calls").hasValueSatisfying(LockHandle::release);
    }
}
