package io.lockkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.support.ProviderFactories;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The factory of docs/provider-kit.md, "Plugging in a provider", found through a services file as a
 * container finds it, configured by its key, and rejecting a bad value with the key's name.
 */
@DisplayName("Plugging in a provider: the guide's factory, found by its services file")
class PluggingInAProviderTest {

    // provider-kit:factory-begin
    public static final class InJvmLockProviderFactory implements LockProviderFactory {

        static final String START_STOPPED = "lockkit.in-jvm.start-stopped";

        @Override
        public String name() {
            return "in-jvm"; // lockkit.provider=in-jvm selects it
        }

        @Override
        public List<ProviderSetting> settings() {
            return List.of(new ProviderSetting(
                    START_STOPPED, "false", "Whether the backend starts stopped, every call failing: outage drills."));
        }

        @Override
        public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
            LocalLockProvider provider = new LocalLockProvider();
            if (settings.bool(START_STOPPED).orElse(false)) { // 'maybe' fails naming the key and its source
                provider.stopBackend();
            }
            return provider;
        }

        @Override
        public String describeTarget(ProviderSettings settings) {
            return "this JVM (" + settings.describe(START_STOPPED, "false") + ")";
        }
    }
    // provider-kit:factory-end

    @Test
    @DisplayName("a services file names the factory; the name selects it, its key configures it")
    void foundConfiguredAndChecked(@TempDir Path jar) throws Exception {
        Path services = jar.resolve("META-INF/services/io.lockkit.spi.LockProviderFactory");
        Files.createDirectories(services.getParent());
        Files.writeString(services, InJvmLockProviderFactory.class.getName() + "\n");
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {jar.toUri().toURL()}, getClass().getClassLoader())) {
            LockProviderFactory factory = ProviderFactories.named("in-jvm", loader);
            assertThat(factory).isInstanceOf(InJvmLockProviderFactory.class);

            ProviderSettings plain = ProviderSettings.of(Map.of(), "the test");
            try (DistributedLockFactory locks =
                            DistributedLockFactory.create(factory.create(plain, ProviderEnvironment.none()));
                    LockHandle hold = locks.acquire("report", LockOptions.noWait())) {
                assertThat(hold.isValid()).isTrue();
            }

            ProviderSettings stopped = ProviderSettings.of(Map.of("lockkit.in-jvm.start-stopped", "true"), "the test");
            try (LockProvider provider = factory.create(stopped, ProviderEnvironment.none())) {
                assertThatThrownBy(() -> provider.tryAcquire(new LockProvider.LockRequest(
                                "report", "c:o", java.time.Duration.ofSeconds(5), java.time.Duration.ZERO)))
                        .isInstanceOf(BackendUnavailableException.class);
            }
            assertThat(factory.describeTarget(stopped))
                    .isEqualTo("this JVM (lockkit.in-jvm.start-stopped = 'true' (from the test))");

            assertThatThrownBy(() -> factory.create(
                            ProviderSettings.of(Map.of("lockkit.in-jvm.start-stopped", "maybe"), "the test"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lockkit.in-jvm.start-stopped = 'maybe' (from the test): expected true or false");
        }
    }
}
