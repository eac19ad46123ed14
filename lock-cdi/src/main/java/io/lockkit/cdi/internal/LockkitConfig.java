package io.lockkit.cdi.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code lockkit.*} settings, from MicroProfile Config when an implementation is present, else
 * from system properties, else from environment variables ({@code lockkit.redis.uri} →
 * {@code LOCKKIT_REDIS_URI}). Values are read once, when the factory is built.
 */
final class LockkitConfig {

    static final String PROVIDER = "lockkit.provider";
    static final String REDIS_URI = "lockkit.redis.uri";
    static final String KEY_PREFIX = "lockkit.redis.key-prefix";
    static final String TIMEOUT = "lockkit.redis.timeout";
    static final String CONNECT_TIMEOUT = "lockkit.redis.connect-timeout";
    static final String MAX_CONNECTIONS = "lockkit.redis.max-connections";
    static final String CLIENT_NAME = "lockkit.redis.client-name";
    static final String WATCHDOG_LEASE = "lockkit.watchdog-lease";

    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");
    private static final System.Logger LOG = System.getLogger(LockkitConfig.class.getName());

    private final Function<String, Optional<String>> source;
    private final String origin;

    LockkitConfig(Function<String, Optional<String>> source, String origin) {
        this.source = source;
        this.origin = origin;
    }

    /** MicroProfile Config if its API and an implementation are present, else system properties and environment. */
    static LockkitConfig load() {
        if (present("org.eclipse.microprofile.config.ConfigProvider")) {
            try {
                return new LockkitConfig(MicroProfileConfig.source(), "MicroProfile Config");
            } catch (RuntimeException | LinkageError e) {
                // The API without an implementation: ConfigProvider throws IllegalStateException.
                LOG.log(System.Logger.Level.DEBUG, "MicroProfile Config unusable, reading system properties", e);
            }
        }
        return system(System.getProperties().entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(e -> String.valueOf(e.getKey()), e -> String.valueOf(e.getValue()),
                        (a, b) -> a)), System.getenv());
    }

    /** Settings from these system properties, falling back to these environment variables. */
    static LockkitConfig system(Map<String, String> properties, Map<String, String> environment) {
        return new LockkitConfig(key -> {
            String value = properties.get(key);
            if (value == null) {
                value = environment.get(key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"));
            }
            return Optional.ofNullable(value).map(String::trim).filter(v -> !v.isEmpty());
        }, "system properties and environment");
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, LockkitConfig.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Where the values come from, for messages. */
    String origin() {
        return origin;
    }

    Optional<String> string(String key) {
        return source.apply(key);
    }

    Optional<Duration> duration(String key) {
        return string(key).map(value -> {
            try {
                return parseDuration(value);
            } catch (IllegalArgumentException e) {
                throw invalid(key, value, "expected a duration such as PT2S, 2s or 500ms");
            }
        });
    }

    Optional<Integer> integer(String key) {
        return string(key).map(value -> {
            try {
                return Integer.valueOf(value);
            } catch (NumberFormatException e) {
                throw invalid(key, value, "expected a whole number");
            }
        });
    }

    IllegalArgumentException invalid(String key, String value, String why) {
        return new IllegalArgumentException(key + " = '" + value + "' (from " + origin + "): " + why);
    }

    /** ISO-8601 ({@code PT2S}), or a whole number with {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}; bare numbers are seconds. */
    static Duration parseDuration(String text) {
        String value = text.trim();
        if (value.regionMatches(true, 0, "P", 0, 1)) {
            try {
                return Duration.parse(value);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
        Matcher m = SIMPLE_DURATION.matcher(value.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        long amount = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }
}
