package io.lockkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.support.ProviderFactories;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding provider factories by name and by URI scheme, and reading their settings. */
class LockProviderFactoryTest {

    private static final ClassLoader LOADER = LockProviderFactoryTest.class.getClassLoader();

    /** A factory as a third party writes one: in-JVM locks, one setting. */
    public static class Memory implements LockProviderFactory {
        @Override
        public String name() {
            return "memory";
        }

        @Override
        public List<ProviderSetting> settings() {
            return List.of(new ProviderSetting("lockkit.memory.delay", "0ms", "Added to every call."));
        }

        @Override
        public Set<String> uriSchemes() {
            return Set.of("memory");
        }

        @Override
        public Optional<String> uriKey() {
            return Optional.of("lockkit.memory.uri");
        }

        @Override
        public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
            settings.duration("lockkit.memory.delay");
            return new LocalLockProvider().newClient();
        }

        @Override
        public String describeTarget(ProviderSettings settings) {
            return "this JVM";
        }
    }

    /** A factory whose scheme is a prefix of a longer one's ({@code jdbc:} vs {@code jdbc:postgresql:}). */
    public static class Postgres extends Memory {
        @Override
        public String name() {
            return "pg";
        }

        @Override
        public Set<String> uriSchemes() {
            return Set.of("jdbc:postgresql", "jdbc");
        }
    }

    /** Another factory with {@link Memory}'s name. */
    public static class MemoryAgain extends Memory {}

    @Test
    @DisplayName("factories are found as services, by name and by the longest matching URI scheme")
    void foundByNameAndScheme() {
        assertThat(ProviderFactories.available(LOADER)).containsOnlyKeys("memory", "pg");
        assertThat(ProviderFactories.named("memory", LOADER)).isInstanceOf(Memory.class);
        assertThat(ProviderFactories.named(" Memory ", LOADER)).isInstanceOf(Memory.class);
        assertThat(ProviderFactories.forUri("MEMORY://x", LOADER)).isInstanceOf(Memory.class);
        assertThat(ProviderFactories.forUri("jdbc:postgresql://db/app", LOADER)).isInstanceOf(Postgres.class);
        try (LockProvider provider = ProviderFactories.named("memory", LOADER)
                .create(ProviderSettings.of(Map.of(), "a test"), ProviderEnvironment.none())) {
            assertThat(provider.capabilities()).isNotNull();
        }
    }

    @Test
    @DisplayName("a missing provider is named with the artifact that brings it, and the present ones")
    void missingProviderNamesTheArtifact() {
        assertThatThrownBy(() -> ProviderFactories.named("redis", LOADER))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no lock provider named 'redis'")
                .hasMessageContaining("io.lockkit:lock-jedis")
                .hasMessageContaining("present: memory, pg");
        assertThatThrownBy(() -> ProviderFactories.named("jdbc", LOADER)).hasMessageContaining("io.lockkit:lock-jdbc");
        assertThatThrownBy(() -> ProviderFactories.forUri("redis://u:secret@host", LOADER))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://u:***@host")
                .hasMessageNotContaining("secret")
                .hasMessageContaining("memory:");
        assertThatThrownBy(() -> ProviderFactories.named(" ", LOADER)).hasMessageStartingWith("name");
        assertThatThrownBy(() -> ProviderFactories.forUri(null, LOADER)).hasMessageStartingWith("uri");
    }

    @Test
    @DisplayName("two factories of one name are refused, naming both classes")
    void duplicateNamesAreRefused(@TempDir Path dir) throws IOException {
        Path services = dir.resolve("META-INF/services/" + LockProviderFactory.class.getName());
        Files.createDirectories(services.getParent());
        Files.writeString(services, MemoryAgain.class.getName() + "\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, LOADER)) {
            assertThatThrownBy(() -> ProviderFactories.available(loader))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("two provider factories are named 'memory'")
                    .hasMessageContaining(Memory.class.getName())
                    .hasMessageContaining(MemoryAgain.class.getName());
        }
    }

    @Test
    @DisplayName("typed settings name the key, the value and its source when they cannot parse it")
    void typedSettings() {
        ProviderSettings settings = ProviderSettings.of(
                Map.of(
                        "lockkit.x.wait", " 250ms ",
                        "lockkit.x.n", "twelve",
                        "lockkit.x.on", "TRUE",
                        "lockkit.x.nodes", "a:1, ,b:2",
                        "lockkit.x.blank", "  ",
                        "lockkit.x.uri", "redis://u:pw@h"),
                "a test");
        assertThat(settings.duration("lockkit.x.wait")).contains(Duration.ofMillis(250));
        assertThat(settings.bool("lockkit.x.on")).contains(true);
        assertThat(settings.list("lockkit.x.nodes")).contains(List.of("a:1", "b:2"));
        assertThat(settings.string("lockkit.x.blank")).isEmpty();
        assertThat(settings.string("lockkit.x.missing")).isEmpty();
        assertThatThrownBy(() -> settings.integer("lockkit.x.n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lockkit.x.n = 'twelve' (from a test): expected a whole number");
        assertThatThrownBy(() -> settings.duration("lockkit.x.n")).hasMessageContaining("expected a duration");
        assertThatThrownBy(() -> settings.bool("lockkit.x.n")).hasMessageContaining("expected true or false");
        assertThat(settings.describe("lockkit.x.uri", "")).isEqualTo("lockkit.x.uri = 'redis://u:***@h' (from a test)");
        assertThat(settings.describe("lockkit.x.port", "6379"))
                .isEqualTo("lockkit.x.port (not set in a test; default '6379')");
    }

    @Test
    @DisplayName("settings whose keys the application spells otherwise name them so in every message")
    void settingsNameKeysAsTheApplicationSpellsThem() {
        Map<String, String> values = Map.of("lockkit.x.n", "twelve", "lockkit.x.uri", "redis://h");
        ProviderSettings settings = ProviderSettings.of(
                key -> java.util.Optional.ofNullable(values.get(key)), "a framework", key -> "framework." + key);
        assertThat(settings.name("lockkit.x.n")).isEqualTo("framework.lockkit.x.n");
        assertThat(settings.string("lockkit.x.uri"))
                .as("values are still read by key")
                .contains("redis://h");
        assertThatThrownBy(() -> settings.integer("lockkit.x.n"))
                .hasMessage("framework.lockkit.x.n = 'twelve' (from a framework): expected a whole number");
        assertThat(settings.describe("lockkit.x.uri", "")).startsWith("framework.lockkit.x.uri = 'redis://h'");
        assertThat(settings.describe("lockkit.x.port", "6379"))
                .isEqualTo("framework.lockkit.x.port (not set in a framework; default '6379')");
        assertThatThrownBy(() -> settings.apply("lockkit.x.n", () -> {
                    throw new IllegalArgumentException("too big");
                }))
                .hasMessage("framework.lockkit.x.n (from a framework): too big");
        assertThat(ProviderSettings.of(values, "a map").name("lockkit.x.n")).isEqualTo("lockkit.x.n");
        assertThatThrownBy(() -> ProviderSettings.of(key -> java.util.Optional.empty(), "x", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("names");
    }

    @Test
    @DisplayName("a setting's key must be a lockkit key with a description")
    void settingChecksItsKey() {
        assertThatThrownBy(() -> new ProviderSetting("redis.uri", null, "The URI."))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("key");
        assertThatThrownBy(() -> new ProviderSetting("lockkit.redis.uri", null, " "))
                .hasMessageStartingWith("description");
    }
}
