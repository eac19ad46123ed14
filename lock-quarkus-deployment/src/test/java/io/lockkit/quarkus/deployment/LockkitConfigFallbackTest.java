package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.quarkus.internal.LockkitConfigFallback;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which of lockkit.x and quarkus.lockkit.x lockkit reads, by the ordinals of their sources. */
@DisplayName("LockkitConfigFallback: lockkit.x is quarkus.lockkit.x unless set as high or higher")
class LockkitConfigFallbackTest {

    private static final String PLAIN = "lockkit.redis.key-prefix";
    private static final String QUARKUS = "quarkus.lockkit.redis.key-prefix";

    private static SmallRyeConfig config(Map<String, String> low, Map<String, String> high) {
        return new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(low, "low", 100), new PropertiesConfigSource(high, "high", 400))
                .withInterceptors(new LockkitConfigFallback())
                .build();
    }

    @Test
    @DisplayName(
            "a packaged application's recorded default of both names yields to quarkus.lockkit.x given at run time")
    void runTimeQuarkusKeyBeatsARecordedDefault() {
        SmallRyeConfig config = config(Map.of(PLAIN, "inventory", QUARKUS, "inventory"), Map.of(QUARKUS, "override"));
        assertThat(config.getValue(PLAIN, String.class)).isEqualTo("override");
    }

    @Test
    @DisplayName("lockkit.x from a higher source wins over quarkus.lockkit.x, and on a tie")
    void plainKeyWinsWhenAsHighOrHigher() {
        assertThat(config(Map.of(QUARKUS, "app"), Map.of(PLAIN, "operator")).getValue(PLAIN, String.class))
                .isEqualTo("operator");
        assertThat(config(Map.of(), Map.of(PLAIN, "plain", QUARKUS, "quarkus")).getValue(PLAIN, String.class))
                .isEqualTo("plain");
    }

    @Test
    @DisplayName("only quarkus.lockkit.x set: read as lockkit.x; neither: unset")
    void fallbackAndUnset() {
        assertThat(config(Map.of(QUARKUS, "app"), Map.of()).getValue(PLAIN, String.class))
                .isEqualTo("app");
        assertThat(config(Map.of(), Map.of()).getOptionalValue(PLAIN, String.class))
                .isEmpty();
    }
}
