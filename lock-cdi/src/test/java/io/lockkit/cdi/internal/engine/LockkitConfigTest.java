package io.lockkit.cdi.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("lockkit settings without MicroProfile Config")
class LockkitConfigTest {

    @Test
    @DisplayName("system properties win over environment variables named LOCKKIT_REDIS_URI style")
    void systemPropertiesThenEnvironment() {
        LockkitConfig config = LockkitConfig.system(
                Map.of("lockkit.redis.uri", "redis://props:1"),
                Map.of(
                        "LOCKKIT_REDIS_URI",
                        "redis://env:1",
                        "LOCKKIT_REDIS_KEY_PREFIX",
                        "env-prefix",
                        "LOCKKIT_WATCHDOG_LEASE",
                        "  "));
        assertThat(config.string(LockkitConfig.REDIS_URI)).contains("redis://props:1");
        assertThat(config.string(LockkitConfig.KEY_PREFIX)).contains("env-prefix");
        assertThat(config.string(LockkitConfig.WATCHDOG_LEASE))
                .as("blank is unset")
                .isEmpty();
        assertThat(config.origin()).isEqualTo("system properties and environment");
    }

    @Test
    @DisplayName("durations are ISO-8601 or a number with a unit; bare numbers are seconds")
    void durationForms() {
        assertThat(LockkitConfig.parseDuration("PT2S")).isEqualTo(Duration.ofSeconds(2));
        assertThat(LockkitConfig.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(LockkitConfig.parseDuration("3s")).isEqualTo(Duration.ofSeconds(3));
        assertThat(LockkitConfig.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(LockkitConfig.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(LockkitConfig.parseDuration("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(LockkitConfig.parseDuration("30")).isEqualTo(Duration.ofSeconds(30));
        LockkitConfig config = LockkitConfig.system(Map.of("lockkit.redis.timeout", "2 fortnights"), Map.of());
        assertThatThrownBy(() -> config.duration(LockkitConfig.TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "lockkit.redis.timeout = '2 fortnights' (from system properties and environment)");
    }
}
