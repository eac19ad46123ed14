package io.lockkit.quarkus.internal;

import io.smallrye.config.ConfigSourceInterceptor;
import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Answers a lookup of a {@code lockkit.*} key with the {@code quarkus.lockkit.*} key of the same
 * name when that one is set in a source of higher ordinal (or the plain key is not set), and lists
 * each {@code quarkus.lockkit.*} run-time key under its {@code lockkit.*} name too, so that lock-cdi and the providers read the extension's configuration as their own.
 * Registered with the ServiceLoader; Quarkus applies it to its configuration.
 */
// Design notes.
// - A fallback, not a relocation: where both keys are set, the one from the source of higher
//   ordinal wins, the plain one on a tie. So an operator's LOCKKIT_REDIS_URI (environment) overrides
//   the application's quarkus.lockkit.redis.uri (application.properties), and QUARKUS_LOCKKIT_REDIS_URI
//   overrides it too: a packaged application records each application.properties value of a run-time
//   key, under every name the interceptors list (so lockkit.x as well), as a default of the lowest
//   ordinal, which must not hide a quarkus.lockkit.x given at run time (LockkitConfigFallbackTest).
// - Priority: the default (application), which runs before SmallRye's own interceptors, so the
//   Quarkus key it asks for goes through profiles (%dev.quarkus.lockkit.*) and expressions.
// - Neither set: the server (and password) of quarkus-redis-client's default client, when it is one
//   standalone host and lockkit names no server (RedisClientFallback).
// - Names: lock-cdi finds declared leaderships and mistyped lockkit.* keys by listing names; the
//   extension's build-time keys (Dev Services, the health and metrics switches) are not listed, and
//   the run-time lockkit.health.enabled and lockkit.metrics.enabled are not read from them.
public final class LockkitConfigFallback implements ConfigSourceInterceptor {

    private static final long serialVersionUID = 1L;

    private static final String PLAIN = "lockkit.";
    private static final String QUARKUS = "quarkus.lockkit.";
    private static final String TLS = "redis.tls";
    private static final String TLS_ENABLED = "redis.tls.enabled";
    /** The extension's build-time keys (without "quarkus.lockkit."), which are no twins of lockkit's run-time keys. */
    private static final List<String> BUILD_TIME = List.of("devservices.", "health.enabled", "metrics.enabled");

    @Override
    public @Nullable ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        ConfigValue value = context.proceed(name);
        if (!name.startsWith(PLAIN)) {
            return value;
        }
        String quarkusName = quarkusName(name.substring(PLAIN.length()));
        if (quarkusName == null) {
            return value;
        }
        ConfigValue fallback = context.proceed(quarkusName);
        if (fallback == null) {
            return value != null ? value : RedisClientFallback.value(context, name);
        }
        if (value != null && value.getConfigSourceOrdinal() >= fallback.getConfigSourceOrdinal()) {
            return value;
        }
        return fallback.withName(name);
    }

    @Override
    public Iterator<String> iterateNames(ConfigSourceInterceptorContext context) {
        Set<String> names = new LinkedHashSet<>();
        Iterator<String> all = context.iterateNames();
        while (all.hasNext()) {
            String name = all.next();
            names.add(name);
            String plain = plainName(name);
            if (plain != null) {
                names.add(plain);
            }
        }
        return names.iterator();
    }

    /** The {@code quarkus.lockkit.*} key for lockkit's key {@code rest} (without "lockkit."), or null if it has none. */
    static @Nullable String quarkusName(String rest) {
        if (buildTime(rest)) {
            return null;
        }
        return quarkusKey(rest);
    }

    private static boolean buildTime(String rest) {
        return BUILD_TIME.stream().anyMatch(rest::startsWith);
    }

    /** {@code quarkus.lockkit.rest}, but {@code quarkus.lockkit.redis.tls.enabled} for {@code redis.tls}: the key's twin by name. */
    static String quarkusKey(String rest) {
        return QUARKUS + (rest.equals(TLS) ? TLS_ENABLED : rest);
    }

    /** lockkit's key for {@code name} when it is a run-time {@code quarkus.lockkit.*} key, else null. */
    static @Nullable String plainName(String name) {
        if (!name.startsWith(QUARKUS)) {
            return null;
        }
        String rest = name.substring(QUARKUS.length());
        if (buildTime(rest)) {
            return null;
        }
        return PLAIN + (rest.equals(TLS_ENABLED) ? TLS : rest);
    }
}
