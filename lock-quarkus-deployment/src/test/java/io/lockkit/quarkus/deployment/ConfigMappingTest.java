package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.jedis.JedisLockProvider;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("quarkus.lockkit.* is what lock-cdi and the providers read as lockkit.*")
class ConfigMappingTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.lockkit.redis.key-prefix", "mapped")
            .overrideConfigKey("quarkus.lockkit.redis.client-name", "from-quarkus")
            .overrideConfigKey("lockkit.redis.client-name", "from-plain")
            .overrideConfigKey("quarkus.lockkit.redis.tls.enabled", "false")
            .overrideConfigKey("quarkus.lockkit.health.timeout", "3s");

    @Inject
    DistributedLockFactory locks;

    @Test
    @DisplayName("a quarkus.lockkit key is read under its lockkit name; where both are set, the plain key wins")
    void quarkusKeysReadAsLockkitKeys() {
        Config config = ConfigProvider.getConfig();
        assertThat(config.getOptionalValue("lockkit.redis.key-prefix", String.class))
                .contains("mapped");
        assertThat(config.getOptionalValue("lockkit.health.timeout", String.class))
                .contains("3s");
        assertThat(config.getOptionalValue("lockkit.redis.client-name", String.class))
                .contains("from-plain");
        assertThat(config.getOptionalValue("lockkit.redis.tls", String.class))
                .as("quarkus.lockkit.redis.tls.enabled is lockkit.redis.tls")
                .contains("false");
        assertThat(config.getOptionalValue("lockkit.devservices.enabled", String.class))
                .as("build-time keys are not lockkit's")
                .isEqualTo(Optional.empty());
    }

    @Test
    @DisplayName("the names lockkit lists include the mapped keys under their lockkit names, and no build-time key")
    void mappedKeysListedUnderLockkitNames() {
        Iterable<String> names = ConfigProvider.getConfig().getPropertyNames();
        assertThat(StreamSupport.stream(names.spliterator(), false))
                .contains("lockkit.redis.key-prefix", "lockkit.redis.tls", "lockkit.health.timeout")
                .noneMatch(name -> name.startsWith("lockkit.devservices"));
    }

    @Test
    @DisplayName("the provider uses the mapped key prefix: a client with that prefix sees the lock held")
    void providerUsesTheMappedKeyPrefix() throws Exception {
        String uri = ConfigProvider.getConfig().getValue("lockkit.redis.uri", String.class);
        try (LockHandle held = locks.acquire("order:1");
                DistributedLockFactory samePrefix = DistributedLockFactory.create(
                        JedisLockProvider.builder().uri(uri).keyPrefix("mapped").build());
                DistributedLockFactory otherPrefix = DistributedLockFactory.create(
                        JedisLockProvider.builder().uri(uri).keyPrefix("other").build())) {
            assertThat(held.fencingToken()).isPositive();
            assertThat(samePrefix.tryAcquire("order:1")).as("same prefix: held").isEmpty();
            Optional<LockHandle> elsewhere = otherPrefix.tryAcquire("order:1");
            assertThat(elsewhere).as("another prefix: another lock").isPresent();
            elsewhere.get().close();
        }
    }
}
