package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.testkit.redis.RedisFixture;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;

@DisplayName("misconfiguration fails the start (or warns) with lockkit's messages, naming the key")
class MisconfigurationTest {

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LockkitAutoConfiguration.class));

    private static String startupFailure(org.springframework.boot.test.context.assertj.AssertableApplicationContext c) {
        assertThat(c).hasFailed();
        StringBuilder messages = new StringBuilder();
        for (Throwable t = c.getStartupFailure(); t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }

    @Test
    @DisplayName("an unknown lockkit.* key is reported at start with the key probably meant")
    void unknownKeyIsReportedWithAHint() {
        try (LogCapture log = new LogCapture("io.lockkit.spring.internal.SpringLockkit")) {
            runner.withPropertyValues("lockkit.provider=local", "lockkit.drain-timout=5s")
                    .run(c -> assertThat(c).hasNotFailed());
            assertThat(log.messages())
                    .contains("lockkit: unknown configuration key lockkit.drain-timout is ignored;"
                            + " did you mean lockkit.drain-timeout?");
        }
    }

    @Test
    @DisplayName("keys in camelCase or snake_case are read as their dashed form, as Boot's relaxed binding reads them")
    void relaxedKeysAreRead() {
        runner.withPropertyValues("lockkit.provider=local", "lockkit.watchdogLease=soon")
                .run(c -> assertThat(startupFailure(c))
                        .as("the camelCase key's value was read")
                        .contains("lockkit.watchdog-lease")
                        .contains("soon"));
        runner.withPropertyValues("lockkit.provider=local", "lockkit.watchdog_lease=later")
                .run(c -> assertThat(startupFailure(c)).contains("later"));
        try (LogCapture log = new LogCapture("io.lockkit.spring.internal.SpringLockkit")) {
            runner.withPropertyValues("lockkit.provider=local", "lockkit.drainTimeout=5s", "lockkit.drainTimout=5s")
                    .run(c -> assertThat(c).hasNotFailed());
            // (The build's own lockkit.* system properties may draw warnings of their own: not counted.)
            assertThat(log.messages())
                    .as("a misspelt key is still a typo")
                    .contains("lockkit: unknown configuration key lockkit.drain-timout is ignored;"
                            + " did you mean lockkit.drain-timeout?")
                    .as("a relaxed spelling of a known key is none")
                    .noneMatch(m -> m.contains("drainTimeout") || m.contains("key lockkit.drain-timeout "));
        }
    }

    @Test
    @DisplayName("a failing start's message ends with the typo hints of the keys set")
    void failureCarriesTypoHints() {
        runner.withPropertyValues("lockkit.provider=local", "lockkit.watchdog-lease=soon", "lockkit.redis.urii=x")
                .run(c -> assertThat(startupFailure(c))
                        .contains("lockkit.watchdog-lease")
                        .contains("soon")
                        .contains("lockkit.redis.urii (did you mean lockkit.redis.uri?)"));
    }

    @Test
    @DisplayName("a @Locked template that names no parameter fails the start, naming the method")
    void badTemplateFailsTheStart() {
        runner.withPropertyValues("lockkit.provider=local")
                .withBean(Misuses.UnknownParameter.class)
                .run(c -> assertThat(startupFailure(c))
                        .contains("@Locked on io.lockkit.spring.Misuses$UnknownParameter.ship(String)")
                        .contains("{customer}"));
    }

    @Test
    @DisplayName("a provider name nobody provides fails the start, naming the key and the way out")
    void unknownProviderFailsTheStart() {
        runner.withPropertyValues("lockkit.provider=zookeeper")
                .run(c -> assertThat(startupFailure(c))
                        .contains("lockkit.provider = 'zookeeper' (from the Spring Environment)")
                        .contains("lockkit.provider=local"));
    }

    @Test
    @DisplayName("no provider on the class path (lock-jedis missing) fails the start, naming the artifact")
    void missingProviderJarFailsTheStart() {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        // ServiceLoader finds providers through the application's (context) class loader: hide their registrations.
        thread.setContextClassLoader(
                new FilteredClassLoader(new ClassPathResource("META-INF/services/io.lockkit.spi.LockProviderFactory")));
        try {
            runner.run(c -> assertThat(startupFailure(c))
                    .contains("lockkit.provider (not set in the Spring Environment; default 'redis')")
                    .contains("io.lockkit:lock-jedis"));
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Test
    @DisplayName("startup=eager: an unreachable Redis fails the start, naming the URI and lockkit.startup=lazy")
    void unreachableRedisFailsAnEagerStart() {
        String uri = "redis://127.0.0.1:" + RedisFixture.freePort();
        runner.withPropertyValues("lockkit.redis.uri=" + uri, "lockkit.redis.timeout=1s")
                .run(c -> assertThat(startupFailure(c))
                        .contains("lockkit: the lock backend did not answer at application start")
                        .contains(uri)
                        .contains("lockkit.startup=lazy starts without it"));
    }

    @Test
    @DisplayName("startup=lazy: the context starts without Redis, and the first call fails typed, in bounded time")
    void lazyStartFailsTheFirstCallTyped() {
        String uri = "redis://127.0.0.1:" + RedisFixture.freePort();
        runner.withPropertyValues("lockkit.redis.uri=" + uri, "lockkit.startup=lazy", "lockkit.redis.timeout=1s")
                .withBean(Misuses.Shipping.class)
                .run(c -> {
                    assertThat(c).hasNotFailed().hasSingleBean(DistributedLockFactory.class);
                    long began = System.nanoTime();
                    assertThatThrownBy(() -> c.getBean(Misuses.Shipping.class).ship("o-1"))
                            .isInstanceOf(BackendUnavailableException.class);
                    assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(30));
                });
    }

    @Test
    @DisplayName("lockkit.startup must be eager or lazy")
    void badStartupValueFailsTheStart() {
        runner.withPropertyValues("lockkit.provider=local", "lockkit.startup=later")
                .run(c -> assertThat(startupFailure(c))
                        .contains("lockkit.startup")
                        .contains("later")
                        .contains("expected eager or lazy"));
    }
}
