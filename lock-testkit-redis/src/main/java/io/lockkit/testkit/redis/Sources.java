package io.lockkit.testkit.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/** Which {@link Source}s a {@link RedisFixture} tries: the defaults, narrowed by the environment, and parsing source names. */
final class Sources {

    private static final System.Logger LOG = System.getLogger(RedisFixture.class.getName());
    private static final AtomicBoolean SOURCES_LOGGED = new AtomicBoolean();

    private Sources() {}

    /**
     * Every source in declaration order, unless {@code LOCKKIT_REDIS_SOURCES} or
     * {@code lockkit.redis.sources} names some.
     */
    static List<Source> defaults() {
        String origin = "environment variable " + RedisFixture.SOURCES_ENVIRONMENT_VARIABLE;
        String names = System.getenv(RedisFixture.SOURCES_ENVIRONMENT_VARIABLE);
        if (names == null || names.isBlank()) {
            origin = "system property " + RedisFixture.SOURCES_SYSTEM_PROPERTY;
            names = System.getProperty(RedisFixture.SOURCES_SYSTEM_PROPERTY);
        }
        if (names == null || names.isBlank()) {
            return List.of(Source.values());
        }
        List<Source> chosen = parse(names, origin);
        if (SOURCES_LOGGED.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.INFO, "Redis for tests only from {0} ({1})", chosen, origin);
        }
        return chosen;
    }

    /** Source names separated by commas, case and '-'/'_' ignored; an unknown one is refused naming {@code origin}. */
    static List<Source> parse(String names, String origin) {
        List<Source> chosen = new ArrayList<>();
        for (String name : names.split(",", -1)) {
            if (name.isBlank()) {
                continue;
            }
            String normalized = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
            try {
                Source source = Source.valueOf(normalized);
                if (!chosen.contains(source)) {
                    chosen.add(source);
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        origin + " names an unknown source '" + name.trim() + "'; known: "
                                + Arrays.toString(Source.values()),
                        e);
            }
        }
        return List.copyOf(chosen);
    }
}
