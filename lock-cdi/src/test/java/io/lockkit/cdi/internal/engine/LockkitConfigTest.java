package io.lockkit.cdi.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.cdi.spi.ConfigNames;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
        assertThat(config.string("lockkit.redis.uri")).contains("redis://props:1");
        assertThat(config.string("lockkit.redis.key-prefix")).contains("env-prefix");
        assertThat(config.string(LockkitConfig.WATCHDOG_LEASE))
                .as("blank is unset")
                .isEmpty();
        assertThat(config.origin()).isEqualTo("system properties and environment");
    }

    @Test
    @DisplayName(
            "durations are read by LockOptions.parseDuration (its forms: LockOptionsTest); a bad one names the key")
    void durationForms() {
        assertThat(LockkitConfig.system(Map.of("lockkit.redis.timeout", "30"), Map.of())
                        .duration("lockkit.redis.timeout"))
                .as("a bare number is seconds")
                .contains(Duration.ofSeconds(30));
        assertThat(LockkitConfig.parseDuration("PT0.5S")).isEqualTo(Duration.ofMillis(500));
        LockkitConfig config = LockkitConfig.system(Map.of("lockkit.redis.timeout", "2 fortnights"), Map.of());
        assertThatThrownBy(() -> config.duration("lockkit.redis.timeout"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "lockkit.redis.timeout = '2 fortnights' (from system properties and environment)");
    }

    @Test
    @DisplayName("a leadership is declared by its keys; other keys under lockkit.leadership. are typos with a hint")
    void leadershipKeys() {
        LockkitConfig config = LockkitConfig.system(
                Map.of(
                        "lockkit.leadership.reports.lease", "10s",
                        "lockkit.leadership.eu.billing.rejoin-delay", "0s",
                        "lockkit.redis.uri", "redis://h:1"),
                Map.of("LOCKKIT_LEADERSHIP_REPORTS_LEASE", "5s"));
        assertThat(config.leadershipNames()).containsExactly("eu.billing", "reports");
        assertThat(config.unknownKeys())
                .as("values of declared leaderships, also from the environment")
                .isEmpty();
        assertThat(config.duration(LockkitConfig.leadershipKey(LockkitConfig.LEADERSHIP_LEASE, "reports")))
                .contains(Duration.ofSeconds(10));

        LockkitConfig typo = LockkitConfig.system(
                Map.of("lockkit.leadership.reports.leese", "10s", "lockkit.leadrship.billing.lease", "1s"), Map.of());
        assertThat(typo.unknownKeys())
                .containsEntry("lockkit.leadership.reports.leese", "lockkit.leadership.reports.lease")
                .containsEntry("lockkit.leadrship.billing.lease", "lockkit.leadership.billing.lease");
        assertThatThrownBy(typo::leadershipNames)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "lockkit.leadership.reports.leese (did you mean lockkit.leadership.reports.lease?)")
                .hasMessageContaining("(from system properties and environment)");
        assertThat(LockkitConfig.system(Map.of("lockkit.leadership.reports", "10s"), Map.of())
                        .unknownKeys())
                .containsEntry("lockkit.leadership.reports", "lockkit.leadership.reports.lease");
    }

    @Test
    @DisplayName(
            "with a runtime's ConfigNames, messages and typo hints name keys as the runtime spells them, its own keys"
                    + " are hint candidates, and keys it warns about are left to it")
    void runtimeNamesInMessages() {
        ConfigNames framework = new ConfigNames() {
            @Override
            public String name(String key) {
                return "framework." + key;
            }

            @Override
            public List<String> runtimeKeys() {
                return List.of("lockkit.devservices.enabled");
            }

            @Override
            public boolean warnsAboutUnknown(String key) {
                return key.equals("lockkit.redis.url");
            }
        };
        Map<String, String> values = Map.of(
                "lockkit.redis.url", "redis://h:1",
                "lockkit.devservice.enabled", "false",
                "lockkit.health.timeout", "soon");
        LockkitConfig config = new LockkitConfig(
                key -> Optional.ofNullable(values.get(key)), "a framework", values::keySet, framework);
        assertThat(config.unknownKeys())
                .as("the runtime's own keys are what a near miss means")
                .containsEntry("lockkit.devservice.enabled", "lockkit.devservices.enabled")
                .containsEntry("lockkit.redis.url", "lockkit.redis.uri");
        assertThat(config.typoHints())
                .contains("framework.lockkit.devservice.enabled (did you mean framework.lockkit.devservices.enabled?)")
                .contains("framework.lockkit.redis.url (did you mean framework.lockkit.redis.uri?)");
        assertThat(config.warnedByRuntime("lockkit.redis.url")).isTrue();
        assertThat(config.warnedByRuntime("lockkit.devservice.enabled")).isFalse();
        assertThatThrownBy(() -> config.duration("lockkit.health.timeout"))
                .hasMessageStartingWith("framework.lockkit.health.timeout = 'soon' (from a framework)");
        assertThat(config.describe("lockkit.redis.uri", "redis://localhost:6379"))
                .isEqualTo("framework.lockkit.redis.uri (not set in a framework; default 'redis://localhost:6379')");
        assertThat(config.providerSettings().name("lockkit.redis.uri")).isEqualTo("framework.lockkit.redis.uri");

        LockkitConfig plain = LockkitConfig.system(Map.of("lockkit.devservice.enabled", "false"), Map.of());
        assertThat(plain.unknownKeys())
                .as("without the runtime, its keys are no candidates")
                .doesNotContainValue("lockkit.devservices.enabled");
        assertThat(plain.name("lockkit.redis.uri")).isEqualTo("lockkit.redis.uri");
    }
}
