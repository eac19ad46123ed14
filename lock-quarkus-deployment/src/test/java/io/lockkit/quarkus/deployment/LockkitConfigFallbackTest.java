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

    @Test
    @DisplayName("no lockkit server key: lockkit.redis.uri is quarkus-redis-client's one standalone host, and"
            + " lockkit.redis.password its password when the host URI has none")
    void redisClientHostWhenLockkitNamesNoServer() {
        SmallRyeConfig config = config(
                Map.of("quarkus.redis.hosts", " redis://cache:6379/2 ", "quarkus.redis.password", "secret"), Map.of());
        assertThat(config.getValue("lockkit.redis.uri", String.class)).isEqualTo("redis://cache:6379/2");
        assertThat(config.getValue("lockkit.redis.password", String.class)).isEqualTo("secret");

        SmallRyeConfig withUser = config(
                Map.of("quarkus.redis.hosts", "redis://app:pw@cache:6379", "quarkus.redis.password", "x"), Map.of());
        assertThat(withUser.getOptionalValue("lockkit.redis.password", String.class))
                .as("the URI's credentials")
                .isEmpty();
    }

    @Test
    @DisplayName(
            "lockkit's own server keys, a Sentinel or Cluster client, or several hosts: the Redis client's hosts are"
                    + " not used")
    void redisClientHostOnlyWhenItFits() {
        Map<String, String> client = Map.of("quarkus.redis.hosts", "redis://cache:6379");
        assertThat(config(merge(client, Map.of("quarkus.lockkit.redis.uri", "redis://locks:6379")), Map.of())
                        .getValue("lockkit.redis.uri", String.class))
                .isEqualTo("redis://locks:6379");
        assertThat(config(merge(client, Map.of("lockkit.redis.sentinel.nodes", "s:26379")), Map.of())
                        .getOptionalValue("lockkit.redis.uri", String.class))
                .isEmpty();
        assertThat(config(merge(client, Map.of("quarkus.redis.client-type", "cluster")), Map.of())
                        .getOptionalValue("lockkit.redis.uri", String.class))
                .isEmpty();
        assertThat(config(Map.of("quarkus.redis.hosts", "redis://a:1,redis://b:1"), Map.of())
                        .getOptionalValue("lockkit.redis.uri", String.class))
                .isEmpty();
    }

    private static Map<String, String> merge(Map<String, String> a, Map<String, String> b) {
        Map<String, String> all = new java.util.HashMap<>(a);
        all.putAll(b);
        return all;
    }
}
