package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ProviderFactories;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link LockProviderFactory} keeps, as JUnit 5 tests: found as a service by its
 * name and by its URI schemes, every key it reads declared, a provider built from settings that
 * locks, and a malformed value refused naming its key and where it came from. A provider's factory
 * test extends this and supplies the name, settings that reach a backend the test started, and
 * malformed values:
 *
 * <pre>{@code
 * class MyProviderFactoryTest extends LockProviderFactoryContract {
 *     protected String providerName() { return "my"; }
 *     protected Map<String, String> validSettings() { return Map.of("lockkit.my.uri", BACKEND.uri()); }
 *     protected Map<String, String> malformedSettings() { return Map.of("lockkit.my.timeout", "soon"); }
 * }
 * }</pre>
 *
 * Each test builds its providers and closes them; the class may add its own tests beside these.
 */
@Timeout(60)
public abstract class LockProviderFactoryContract {

    /** Where the contract's settings say they came from, as messages must name it. */
    protected static final String ORIGIN = "the factory contract's settings";

    /** The provider's name, {@code lockkit.provider}'s value that selects it. */
    protected abstract String providerName();

    /** Keys and values with which {@code create} builds a provider on a backend the test reaches. */
    protected abstract Map<String, String> validSettings();

    /**
     * Keys and values, each of which, added to the {@link #validSettings()}, makes {@code create}
     * fail with an {@link IllegalArgumentException} that names the key and {@link #ORIGIN}.
     */
    protected abstract Map<String, String> malformedSettings();

    /** What the container offers the factory; by default nothing ({@link ProviderEnvironment#none()}). */
    protected ProviderEnvironment environment() {
        return ProviderEnvironment.none();
    }

    /** The factory under test, found as a service by its name. */
    protected final LockProviderFactory factory() {
        return ProviderFactories.named(providerName(), getClass().getClassLoader());
    }

    /** {@code values} as settings from {@link #ORIGIN}. */
    protected static ProviderSettings settings(Map<String, String> values) {
        return ProviderSettings.of(values, ORIGIN);
    }

    @Test
    @DisplayName("ServiceLoader finds it by its name and by a URI of each of its schemes")
    void foundByItsNameAndItsUriSchemes() {
        LockProviderFactory factory = factory();
        ClassLoader loader = getClass().getClassLoader();
        assertThat(factory.name()).isEqualTo(providerName()).matches(LockProviderFactory.NAME);
        for (String scheme : factory.uriSchemes()) {
            String uri = scheme + "://contract-host/app";
            assertThat(ProviderFactories.forUri(uri, loader)).as(uri).isInstanceOf(factory.getClass());
        }
        assertThat(factory.uriKey().isPresent())
                .as("a URI key exactly when there are URI schemes")
                .isEqualTo(!factory.uriSchemes().isEmpty());
        factory.uriKey().ifPresent(key -> assertThat(declared(factory)).contains(key));
    }

    @Test
    @DisplayName("settings() declares every key create reads, each once under lockkit.<name>.")
    void declaresEveryKeyItReads() {
        LockProviderFactory factory = factory();
        Set<String> asked = ConcurrentHashMap.newKeySet();
        Map<String, String> values = validSettings();
        ProviderSettings recording = ProviderSettings.of(
                key -> {
                    asked.add(key);
                    return Optional.ofNullable(values.get(key));
                },
                ORIGIN);
        factory.create(recording, environment()).close();
        List<ProviderSetting> settings = factory.settings();
        assertThat(declared(factory))
                .hasSize(settings.size())
                .allMatch(k -> k.startsWith("lockkit." + providerName() + "."));
        assertThat(asked).isNotEmpty().isSubsetOf(declared(factory));
    }

    @Test
    @DisplayName("a provider built from settings locks and unlocks, and describeTarget names its backend")
    void buildsAProviderThatLocks() throws InterruptedException {
        LockProviderFactory factory = factory();
        LockProvider provider = factory.create(settings(validSettings()), environment());
        try (DistributedLockFactory locks = DistributedLockFactory.create(provider)) {
            try (LockHandle hold = locks.acquire("factory-contract", LockOptions.noWait())) {
                assertThat(hold.isValid()).isTrue();
            }
        }
        assertThat(factory.describeTarget(settings(validSettings()))).isNotBlank();
    }

    @Test
    @DisplayName("a malformed value is refused naming its key and where it came from")
    void malformedValuesAreRefusedNamingTheKey() {
        Map<String, String> malformed = malformedSettings();
        assertThat(malformed).as("malformedSettings()").isNotEmpty();
        LockProviderFactory factory = factory();
        malformed.forEach((key, value) -> {
            Map<String, String> values = new HashMap<>(validSettings());
            values.put(key, value);
            assertThatThrownBy(() ->
                            factory.create(settings(values), environment()).close())
                    .as("%s = '%s'", key, value)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(key)
                    .hasMessageContaining("(from " + ORIGIN + ")");
        });
    }

    private static Set<String> declared(LockProviderFactory factory) {
        return factory.settings().stream().map(ProviderSetting::key).collect(Collectors.toSet());
    }
}
