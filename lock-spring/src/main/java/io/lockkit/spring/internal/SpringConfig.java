package io.lockkit.spring.internal;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

/**
 * lockkit's configuration ({@link LockkitConfig}, the same keys and rules as in CDI and Quarkus) read
 * from Spring's {@link Environment}: {@code application.properties}/{@code .yml}, system properties,
 * environment variables ({@code LOCKKIT_REDIS_URI}) and every other property source of the application.
 * Values are read when asked; the relaxed spellings of {@code lockkit.*} keys an environment
 * defines are gathered once per {@link #of}, at the first key it does not find as written.
 * Thread-safe as the environment is.
 *
 * <p>Without {@code lockkit.redis.uri} (nor a Sentinel or Cluster key), the Redis provider's
 * address comes from Boot's own {@code spring.data.redis.*} when the application sets it: {@code url},
 * or {@code host}, {@code port}, {@code username}, {@code password}, {@code database} and
 * {@code ssl.enabled} (TLS: {@code rediss://}). Only the address and the credentials are reused: Boot's
 * client is Lettuce and lockkit's is Jedis, so Boot's timeouts, pool, client name, Sentinel and Cluster
 * settings and SSL bundles are not; lockkit's keys set those.
 */
public final class SpringConfig {

    /** Where the values come from, for messages. */
    static final String ORIGIN = "the Spring Environment";

    static final String REDIS_URI = "lockkit.redis.uri";
    private static final List<String> REDIS_TOPOLOGY = List.of(
            REDIS_URI, "lockkit.redis.sentinel.master", "lockkit.redis.sentinel.nodes", "lockkit.redis.cluster.nodes");
    private static final String SPRING_REDIS = "spring.data.redis.";
    private static final String LOCKKIT = "lockkit.";
    private static final String LEADERSHIP = "lockkit.leadership.";

    private SpringConfig() {}

    /** lockkit's settings in {@code environment}. */
    public static LockkitConfig of(Environment environment) {
        Relaxed relaxed = new Relaxed(environment);
        String derived = redisFromSpring(environment, relaxed);
        String origin = derived == null ? ORIGIN : ORIGIN + "; " + REDIS_URI + " from spring.data.redis.*";
        return LockkitConfig.of(
                key -> {
                    Optional<String> value = value(environment, key, relaxed);
                    return value.isEmpty() && derived != null && REDIS_URI.equals(key) ? Optional.of(derived) : value;
                },
                origin,
                () -> names(environment));
    }

    /**
     * The value of {@code key}, or of a {@code lockkit.*} property that spells it as Boot's relaxed
     * binding allows ({@code lockkit.drainTimeout}, {@code lockkit.drain_timeout} for
     * {@code lockkit.drain-timeout}).
     */
    private static Optional<String> value(Environment environment, String key, Relaxed relaxed) {
        String value = environment.getProperty(key);
        if (value == null && key.startsWith(LOCKKIT)) {
            String name = relaxed.spelling(key);
            value = name == null ? null : environment.getProperty(name);
        }
        return Optional.ofNullable(value).map(String::trim).filter(v -> !v.isEmpty());
    }

    /**
     * The {@code lockkit.*} property names an environment defines in another spelling than the
     * dashed one, by the key they spell; gathered at the first lookup (enumerating every property
     * source once, not at each missing key).
     */
    private static final class Relaxed {
        private final Environment environment;
        private volatile @Nullable Map<String, String> byKey;

        Relaxed(Environment environment) {
            this.environment = environment;
        }

        @Nullable
        String spelling(String key) {
            Map<String, String> m = byKey;
            if (m == null) {
                m = new HashMap<>();
                for (String name : definedNames(environment)) {
                    String canonical = name.startsWith(LOCKKIT) ? canonical(name) : name;
                    if (!canonical.equals(name)) {
                        m.putIfAbsent(canonical, name);
                    }
                }
                byKey = m;
            }
            return m.get(key);
        }
    }

    /**
     * The {@code lockkit.*} properties (in their canonical, dashed form) and {@code LOCKKIT_*}
     * variables the environment defines, for the typo check.
     */
    static List<String> names(Environment environment) {
        List<String> names = new ArrayList<>();
        for (String name : definedNames(environment)) {
            String key = name.startsWith(LOCKKIT) ? canonical(name) : name;
            if (!names.contains(key)) {
                names.add(key);
            }
        }
        return names;
    }

    private static List<String> definedNames(Environment environment) {
        List<String> names = new ArrayList<>();
        if (environment instanceof ConfigurableEnvironment configurable) {
            for (PropertySource<?> source : configurable.getPropertySources()) {
                if (source instanceof EnumerablePropertySource<?> enumerable) {
                    for (String name : enumerable.getPropertyNames()) {
                        if ((name.startsWith(LOCKKIT) || name.startsWith("LOCKKIT_")) && !names.contains(name)) {
                            names.add(name);
                        }
                    }
                }
            }
        }
        return names;
    }

    /**
     * A {@code lockkit.*} property name in the dashed form lockkit's keys are written in, as Boot's
     * relaxed binding reads it: {@code camelCase} and {@code snake_case} elements become
     * {@code kebab-case}. A leadership's own name ({@code lockkit.leadership.<name>.<setting>}) is
     * the application's and stays as written; only its setting is read relaxed.
     */
    static String canonical(String name) {
        if (name.startsWith(LEADERSHIP)) {
            int lastDot = name.lastIndexOf('.');
            return lastDot < LEADERSHIP.length()
                    ? name
                    : name.substring(0, lastDot + 1) + kebab(name.substring(lastDot + 1));
        }
        return kebab(name);
    }

    private static String kebab(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '_') {
                sb.append('-');
            } else if (Character.isUpperCase(c)) {
                char before = i > 0 ? name.charAt(i - 1) : '.';
                if (Character.isLowerCase(before) || Character.isDigit(before)) { // drainTimeout; not URI
                    sb.append('-');
                }
                sb.append(Character.toLowerCase(c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /**
     * The Redis URI {@code spring.data.redis.*} describes, or null when the application sets no
     * Redis address there, or sets lockkit's own.
     */
    private static @Nullable String redisFromSpring(Environment environment, Relaxed relaxed) {
        for (String key : REDIS_TOPOLOGY) {
            if (value(environment, key, relaxed).isPresent()) {
                return null;
            }
        }
        Optional<String> url = value(environment, SPRING_REDIS + "url", relaxed);
        if (url.isPresent()) {
            return url.get();
        }
        Optional<String> host = value(environment, SPRING_REDIS + "host", relaxed);
        Optional<String> port = value(environment, SPRING_REDIS + "port", relaxed);
        if (host.isEmpty() && port.isEmpty()) {
            return null;
        }
        boolean tls = value(environment, SPRING_REDIS + "ssl.enabled", relaxed)
                .map(Boolean::parseBoolean)
                .orElse(false);
        StringBuilder uri = new StringBuilder(tls ? "rediss://" : "redis://");
        boolean ownCredentials =
                value(environment, "lockkit.redis.user", relaxed).isPresent()
                        || value(environment, "lockkit.redis.password", relaxed).isPresent();
        Optional<String> password = value(environment, SPRING_REDIS + "password", relaxed);
        if (!ownCredentials && password.isPresent()) {
            value(environment, SPRING_REDIS + "username", relaxed).ifPresent(user -> uri.append(encode(user)));
            uri.append(':').append(encode(password.get())).append('@');
        }
        uri.append(host.orElse("localhost")).append(':').append(port.orElse("6379"));
        value(environment, SPRING_REDIS + "database", relaxed)
                .ifPresent(db -> uri.append('/').append(db));
        return uri.toString();
    }

    /** {@code text} percent-encoded for a URI's user information (RFC 3986's unreserved characters kept). */
    private static String encode(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }
}
