package io.lockkit.quarkus.deployment;

import io.lockkit.quarkus.LockkitBuildTimeConfig;
import io.quarkus.deployment.IsDevServicesSupportedByLaunchMode;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.DevServicesResultBuildItem;
import io.quarkus.deployment.dev.devservices.DevServicesConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * Dev Services: a Redis server in dev and test mode when the application has the Redis provider
 * (lock-jedis) and configures no server for it.
 */
// Design notes.
// - "Configured" is any key that names a server, as lockkit reads it: the plain lockkit.* key or the
//   quarkus.lockkit.* one (LockkitConfigFallback maps the second onto the first at run time).
// - The server's URI is given to the application as quarkus.lockkit.redis.uri, which a plain
//   lockkit.redis.uri would override; that one counts as configured, so the two never compete.
// - Sharing across live reloads is Quarkus': an owned service whose serviceConfig is unchanged is
//   kept; changing the sources restarts it.
// - Quarkus' own Redis Dev Service (quarkus-redis-client) is not used: it needs a container runtime and
//   configures its own client's keys. A container comes first here too (the "container" source) when
//   Testcontainers is on the build's class path and a container runtime answers. An application that
//   configures the client's server (quarkus.redis.hosts) gets none: lockkit uses that server.
class DevServicesProcessor {

    private static final Logger LOG = Logger.getLogger(DevServicesProcessor.class);

    /** The keys that name a Redis server, without their "lockkit." or "quarkus.lockkit." prefix. */
    static final List<String> SERVER_KEYS = List.of("redis.uri", "redis.sentinel.nodes", "redis.cluster.nodes");

    static final String URI_KEY = "quarkus.lockkit.redis.uri";

    /** The server of quarkus-redis-client's default client, which lockkit uses when it names none. */
    static final String REDIS_CLIENT_HOSTS = "quarkus.redis.hosts";

    @BuildStep(
            onlyIf = {
                IsDevServicesSupportedByLaunchMode.class,
                DevServicesConfig.Enabled.class,
                RedisProviderPresent.class
            })
    @Nullable
    DevServicesResultBuildItem redis(LockkitBuildTimeConfig config) {
        if (!config.devservices().enabled()) {
            LOG.debug("lockkit Dev Services: disabled by quarkus.lockkit.devservices.enabled");
            return null;
        }
        Config applicationConfig = ConfigProvider.getConfig();
        String provider = value(applicationConfig, "provider").orElse("redis").toLowerCase(Locale.ROOT);
        if (!provider.equals("redis")) {
            LOG.debugf("lockkit Dev Services: no Redis for provider %s", provider);
            return null;
        }
        for (String key : SERVER_KEYS) {
            Optional<String> configured = value(applicationConfig, key);
            if (configured.isPresent()) {
                LOG.debugf("lockkit Dev Services: no Redis started, lockkit.%s is configured", key);
                return null;
            }
        }
        if (applicationConfig
                .getOptionalValue(REDIS_CLIENT_HOSTS, String.class)
                .filter(v -> !v.isBlank())
                .isPresent()) {
            // lockkit uses the Redis client's server (lock-quarkus' RedisClientFallback)
            LOG.debugf("lockkit Dev Services: no Redis started, %s is configured", REDIS_CLIENT_HOSTS);
            return null;
        }
        LockkitBuildTimeConfig.DevServices devServices = config.devservices();
        DevServicesRedis.Settings settings = new DevServicesRedis.Settings(
                DevServicesRedis.sources(devServices.sources()),
                devServices.port().orElse(0),
                devServices.shared());
        return DevServicesResultBuildItem.owned()
                .feature(LockkitProcessor.FEATURE)
                .serviceName("lockkit-redis")
                .serviceConfig(settings)
                .startable(() -> new DevServicesRedis(settings))
                .configProvider(Map.of(URI_KEY, DevServicesRedis::getConnectionInfo))
                .build();
    }

    /** The value of lockkit's key {@code rest}, as {@code lockkit.rest} or {@code quarkus.lockkit.rest}. */
    private static Optional<String> value(Config config, String rest) {
        return config.getOptionalValue("lockkit." + rest, String.class)
                .or(() -> config.getOptionalValue("quarkus.lockkit." + rest, String.class))
                .map(String::trim)
                .filter(v -> !v.isEmpty());
    }
}
