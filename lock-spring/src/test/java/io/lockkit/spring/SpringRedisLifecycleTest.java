package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LockHandle;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("the application's Redis: Boot's spring.data.redis address, health, metrics and leadership events")
class SpringRedisLifecycleTest {

    /** The tests of Boot 4's health module, which the Boot 3.5 run (-Pboot3) leaves out. */
    private static final String BOOT4_HEALTH = "boot4-health";

    private static RedisServer redis;

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LockkitAutoConfiguration.class));

    @BeforeAll
    static void startRedis() {
        redis = RedisFixture.builder().build().start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    @DisplayName("without lockkit.redis.uri, the factory locks on the Redis spring.data.redis.host and port name")
    void redisAddressFromSpringDataRedis() {
        runner.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .run(c -> {
                    assertThat(c).hasNotFailed();
                    try (LockHandle held =
                            c.getBean(DistributedLockFactory.class).acquire("from-spring-data")) {
                        assertThat((List<?>) redis.command("KEYS", "*from-spring-data*"))
                                .isNotEmpty();
                    }
                });
    }

    @Test
    @DisplayName("spring.data.redis.url is used as it is, and lockkit.redis.uri wins over Boot's address")
    void lockkitUriWinsOverSpringDataRedis() {
        runner.withPropertyValues("spring.data.redis.url=" + redis.uri())
                .run(c -> assertThat(c).hasNotFailed());
        int nobody = RedisFixture.freePort();
        runner.withPropertyValues(
                        "spring.data.redis.url=redis://127.0.0.1:" + nobody, "lockkit.redis.uri=" + redis.uri())
                .run(c -> assertThat(c).hasNotFailed());
        runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + nobody, "lockkit.redis.timeout=1s")
                .run(c -> assertThat(c.getStartupFailure())
                        .hasMessageContaining("lockkit.redis.uri = 'redis://127.0.0.1:" + nobody + "'")
                        .hasMessageContaining("lockkit.redis.uri from spring.data.redis.*"));
    }

    @Test
    @Tag(BOOT4_HEALTH)
    @DisplayName("the lockkit health indicator is UP with the backend's details, and DOWN naming why once Redis stops")
    void healthUpThenDown() {
        RedisServer own = RedisFixture.builder().build().start();
        try {
            runner.withPropertyValues("lockkit.redis.uri=" + own.uri(), "lockkit.redis.timeout=1s")
                    .run(c -> {
                        HealthIndicator indicator = c.getBean("lockkitHealthIndicator", HealthIndicator.class);
                        Health up = indicator.health();
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails()).containsKeys("backend", "activeHolds", "watchdog");
                        own.stop();
                        Health down = indicator.health();
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(down.getDetails()).containsKey("reason");
                    });
        } finally {
            own.close();
        }
    }

    @Test
    @Tag(BOOT4_HEALTH)
    @DisplayName("lockkit.health.enabled=false keeps the indicator UP without probing")
    void healthNotChecked() {
        runner.withPropertyValues("lockkit.provider=local", "lockkit.health.enabled=false")
                .run(c -> assertThat(c.getBean("lockkitHealthIndicator", HealthIndicator.class)
                                .health()
                                .getDetails())
                        .containsEntry("reason", "not checked: lockkit.health.enabled=false"));
    }

    @Test
    @DisplayName("with a MeterRegistry bean, the factory's acquisitions are counted in it")
    void metricsInTheApplicationsRegistry() {
        runner.withPropertyValues("lockkit.redis.uri=" + redis.uri())
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(c -> {
                    c.getBean(DistributedLockFactory.class).acquire("metered").release();
                    assertThat(c.getBean(MeterRegistry.class).getMeters()).isNotEmpty();
                    assertThat(c.getBean(MeterRegistry.class).getMeters().stream()
                                    .map(m -> m.getId().getName()))
                            .anyMatch(name -> name.startsWith("lockkit"));
                });
    }

    @Test
    @DisplayName(
            "a leadership in lockkit.leadership.<name>.* publishes granted with its token, and revoked CLOSED at close")
    void leadershipEvents() {
        runner.withPropertyValues("lockkit.redis.uri=" + redis.uri(), "lockkit.leadership.reports.lease=5s")
                .withBean(LeadershipEvents.class)
                .run(c -> {
                    LeadershipEvents events = c.getBean(LeadershipEvents.class);
                    await().atMost(Duration.ofSeconds(30)).until(() -> !events.events.isEmpty());
                    LeadershipGrantedEvent granted = (LeadershipGrantedEvent) events.events.get(0);
                    assertThat(granted.name()).isEqualTo("reports");
                    assertThat(granted.fencingToken()).isPositive();
                    LockkitLeaderships leaderships = c.getBean(LockkitLeaderships.class);
                    assertThat(leaderships.get("reports"))
                            .as("the declared leadership, as a bean")
                            .hasValueSatisfying(l -> {
                                assertThat(l.isLeader()).isTrue();
                                assertThat(l.currentTerm().orElseThrow().fencingToken())
                                        .isEqualTo(granted.fencingToken());
                            });
                    assertThat(leaderships.get("undeclared")).isEmpty();
                    c.getSourceApplicationContext().close();
                    assertThat(events.events).hasSize(2);
                    LeadershipRevokedEvent revoked = (LeadershipRevokedEvent) events.events.get(1);
                    assertThat(revoked.reason()).isEqualTo(RevocationReason.CLOSED);
                    assertThat(revoked.fencingToken()).isEqualTo(granted.fencingToken());
                });
    }
}
