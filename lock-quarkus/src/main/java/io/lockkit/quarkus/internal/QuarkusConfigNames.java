package io.lockkit.quarkus.internal;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.cdi.spi.ConfigNames;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.SmallRyeConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * lockkit's keys as a Quarkus application sets them, for lockkit's messages: {@code
 * quarkus.lockkit.redis.uri} for {@code lockkit.redis.uri}, unless the application set the plain
 * key and its value is the one in force. Registered with the ServiceLoader for lock-cdi.
 */
// Design notes.
// - Which name: the key the value lockkit read came from. A plain lockkit.x set on its own (or
//   winning over quarkus.lockkit.x from a stronger source) is named as it was set, a value of the
//   Redis client's (quarkus.redis.hosts) as the client's key; everything else, a key not set at all
//   included, is named quarkus.lockkit.x, the spelling the guide teaches.
// - Unknown keys: a mistyped quarkus.lockkit.x is listed to lock-cdi as lockkit.x by
//   LockkitConfigFallback, and Quarkus already warns about quarkus.lockkit.x ("Unrecognized
//   configuration key"), so lock-cdi does not warn a second time; its failure messages still name it.
//   A key in another provider's section is no key Quarkus warns about (the mapping's catch-all takes
//   it): lock-quarkus reports it when the provider is present (OtherProviderKeys), lock-cdi otherwise.
// - The build-time Dev Services keys are no keys lock-cdi reads, but a mistyped one should be guessed
//   right: they are offered as runtime keys (the health and metrics switches are lock-cdi's keys too).
public final class QuarkusConfigNames implements ConfigNames {

    /** The extension's build-time keys lock-cdi does not read, as lockkit.* names. */
    static final List<String> BUILD_TIME_KEYS = List.of(
            "lockkit.devservices.enabled",
            "lockkit.devservices.sources",
            "lockkit.devservices.port",
            "lockkit.devservices.shared");

    private static final String PLAIN = "lockkit.";

    /** lockkit's keys the default Redis client's configuration may answer (RedisClientFallback), by the client's key. */
    private static final Map<String, String> REDIS_CLIENT_KEYS = Map.of(
            "lockkit.redis.uri", RedisClientFallback.HOSTS, "lockkit.redis.password", RedisClientFallback.PASSWORD);

    /** Called by the ServiceLoader. */
    public QuarkusConfigNames() {}

    @Override
    public String name(String key) {
        if (!key.startsWith(PLAIN)) {
            return key;
        }
        String quarkusName = LockkitConfigFallback.quarkusKey(key.substring(PLAIN.length()));
        SmallRyeConfig config = ConfigProvider.getConfig().unwrap(SmallRyeConfig.class);
        ConfigValue read = config.getConfigValue(key); // through LockkitConfigFallback: what lockkit reads
        if (read.getValue() == null) {
            return quarkusName;
        }
        if (same(config.getConfigValue(quarkusName), read)) {
            return quarkusName;
        }
        String client = REDIS_CLIENT_KEYS.get(key);
        if (client != null && same(config.getConfigValue(client), read)) {
            return client; // RedisClientFallback: the Redis client's configuration answered
        }
        return key;
    }

    /** Whether {@code read} (what lockkit read) is {@code candidate}'s value, from the same source. */
    private static boolean same(ConfigValue candidate, ConfigValue read) {
        return candidate.getValue() != null
                && read.getValue() != null
                && candidate.getValue().trim().equals(read.getValue().trim())
                && Objects.equals(candidate.getConfigSourceName(), read.getConfigSourceName());
    }

    @Override
    public List<String> runtimeKeys() {
        return BUILD_TIME_KEYS;
    }

    @Override
    public boolean warnsAboutUnknown(String key) {
        if (!key.startsWith(PLAIN)) {
            return false;
        }
        if (OtherProviderKeys.otherSection(key) != null) {
            return OtherProviderKeys.reportedHere(key, LockkitConfig.applicationLoader());
        }
        String quarkusName = LockkitConfigFallback.quarkusKey(key.substring(PLAIN.length()));
        return ConfigProvider.getConfig()
                        .unwrap(SmallRyeConfig.class)
                        .getConfigValue(quarkusName)
                        .getValue()
                != null;
    }
}
