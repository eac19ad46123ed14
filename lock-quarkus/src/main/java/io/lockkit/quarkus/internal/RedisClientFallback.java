package io.lockkit.quarkus.internal;

import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The Redis of {@code quarkus-redis-client}'s default client, for an application that configures
 * it and not lockkit's: {@code quarkus.redis.hosts} answers {@code lockkit.redis.uri}, and {@code
 * quarkus.redis.password} {@code lockkit.redis.password}, when neither lockkit key names a server.
 */
// Design notes.
// - Only a standalone client with one host: Sentinel (master name, role) and Cluster clients are
//   configured differently in the two libraries; lockkit then needs its own keys.
// - Credentials: the host URI's user and password come with it; quarkus.redis.password only when the
//   URI has none, as the Redis client itself reads it.
// - Not reused: the TLS registry (quarkus.redis.tls-configuration-name, quarkus.tls.*). A rediss://
//   host is reached over TLS with the JVM's trust store; a trust or key store of the registry must
//   be given as quarkus.lockkit.redis.tls.* too. Nor named clients (quarkus.redis.<name>.hosts).
final class RedisClientFallback {

    static final String HOSTS = "quarkus.redis.hosts";
    static final String PASSWORD = "quarkus.redis.password";
    static final String CLIENT_TYPE = "quarkus.redis.client-type";

    /** lockkit's keys that name a server, each under both its names: when one is set, lockkit has its own Redis. */
    private static final List<String> LOCKKIT_SERVER_KEYS = List.of(
            "lockkit.redis.uri",
            "quarkus.lockkit.redis.uri",
            "lockkit.redis.sentinel.nodes",
            "quarkus.lockkit.redis.sentinel.nodes",
            "lockkit.redis.cluster.nodes",
            "quarkus.lockkit.redis.cluster.nodes");

    private RedisClientFallback() {}

    /**
     * The Redis client's value for lockkit's key {@code name} ({@code lockkit.redis.uri} or
     * {@code lockkit.redis.password}), named {@code name}; null when lockkit has a server of its own
     * or the client's configuration does not fit.
     */
    static @Nullable ConfigValue value(ConfigSourceInterceptorContext context, String name) {
        boolean uri = name.equals("lockkit.redis.uri");
        if (!uri && !name.equals("lockkit.redis.password")) {
            return null;
        }
        ConfigValue hosts = standaloneHost(context);
        if (hosts == null) {
            return null;
        }
        if (uri) {
            return hosts.withName(name);
        }
        if (isSet(context, "quarkus.lockkit.redis.password") || hasUserInfo(String.valueOf(hosts.getValue()))) {
            return null;
        }
        ConfigValue password = context.proceed(PASSWORD);
        return password == null || password.getValue() == null ? null : password.withName(name);
    }

    /** The client's one host, when it is a standalone client and lockkit names no server of its own. */
    private static @Nullable ConfigValue standaloneHost(ConfigSourceInterceptorContext context) {
        for (String key : LOCKKIT_SERVER_KEYS) {
            if (isSet(context, key)) {
                return null;
            }
        }
        ConfigValue type = context.proceed(CLIENT_TYPE);
        if (type != null
                && type.getValue() != null
                && !type.getValue().trim().toLowerCase(Locale.ROOT).equals("standalone")) {
            return null;
        }
        ConfigValue hosts = context.proceed(HOSTS);
        if (hosts == null || hosts.getValue() == null) {
            return null;
        }
        String value = hosts.getValue().trim();
        if (value.isEmpty() || value.contains(",")) {
            return null;
        }
        return hosts.withValue(value);
    }

    private static boolean isSet(ConfigSourceInterceptorContext context, String key) {
        ConfigValue value = context.proceed(key);
        return value != null && value.getValue() != null && !value.getValue().isBlank();
    }

    private static boolean hasUserInfo(String uri) {
        try {
            return URI.create(uri).getRawUserInfo() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
