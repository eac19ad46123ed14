package io.lockkit.spi;

import io.lockkit.LockOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The configuration a {@link LockProviderFactory} reads: values by full key ({@code
 * lockkit.redis.uri}), typed, with where they came from for messages. Values are trimmed; a blank
 * value counts as not set. Every typed read that cannot parse its value throws an {@code
 * IllegalArgumentException} naming the key, the value and the source, so a factory only adds the
 * checks across keys.
 */
public final class ProviderSettings {

    private final Function<String, Optional<String>> source;
    private final String origin;
    private final UnaryOperator<String> names;

    private ProviderSettings(Function<String, Optional<String>> source, String origin, UnaryOperator<String> names) {
        this.source = source;
        this.origin = origin;
        this.names = names;
    }

    /**
     * Settings read from {@code source}, which answers a full key with its value or empty;
     * {@code origin} names it in messages ("MicroProfile Config", "the command line").
     */
    public static ProviderSettings of(Function<String, Optional<String>> source, String origin) {
        return of(source, origin, UnaryOperator.identity());
    }

    /**
     * Settings read from {@code source}, as {@link #of(Function, String)}, whose keys an application
     * sets under other names: {@code names} gives the name of a full key ({@code lockkit.redis.uri})
     * as the application spells it (Quarkus' {@code quarkus.lockkit.redis.uri}), and messages use it.
     */
    public static ProviderSettings of(
            Function<String, Optional<String>> source, String origin, UnaryOperator<String> names) {
        if (source == null) {
            throw new IllegalArgumentException("source must not be null");
        }
        if (origin == null || origin.isBlank()) {
            throw new IllegalArgumentException("origin must not be null or blank");
        }
        if (names == null) {
            throw new IllegalArgumentException("names must not be null");
        }
        return new ProviderSettings(source, origin, names);
    }

    /** Settings from a map of full keys to values. */
    public static ProviderSettings of(Map<String, String> values, String origin) {
        if (values == null) {
            throw new IllegalArgumentException("values must not be null");
        }
        Map<String, String> copy = Map.copyOf(values);
        return of(key -> Optional.ofNullable(copy.get(key)), origin);
    }

    /** Where the values come from, for messages. */
    public String origin() {
        return origin;
    }

    /**
     * The name {@code key} is set under where these settings come from, for messages: the key itself,
     * or the application's spelling of it (see {@link #of(Function, String, UnaryOperator)}). A factory
     * names keys in its own messages through this.
     */
    public String name(String key) {
        String name = names.apply(key);
        return name == null || name.isBlank() ? key : name;
    }

    /** The value of {@code key}, trimmed; empty when it is not set or blank. */
    public Optional<String> string(String key) {
        Optional<String> value = source.apply(key);
        return value == null ? Optional.empty() : value.map(String::strip).filter(v -> !v.isEmpty());
    }

    /**
     * A duration: ISO-8601 ({@code PT2S}) or a whole number with {@code ms}, {@code s}, {@code m},
     * {@code h} or {@code d} (bare numbers are seconds), as {@link LockOptions#parseDuration}.
     */
    public Optional<Duration> duration(String key) {
        return string(key).map(value -> {
            try {
                return LockOptions.parseDuration(value);
            } catch (IllegalArgumentException e) {
                throw invalid(key, value, "expected a duration such as PT2S, 2s or 500ms");
            }
        });
    }

    /** A whole number. */
    public Optional<Integer> integer(String key) {
        return string(key).map(value -> {
            try {
                return Integer.valueOf(value);
            } catch (NumberFormatException e) {
                throw invalid(key, value, "expected a whole number");
            }
        });
    }

    /** {@code true} or {@code false}, in any case. */
    public Optional<Boolean> bool(String key) {
        return string(key).map(value -> switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw invalid(key, value, "expected true or false");
        });
    }

    /** A comma-separated list, its items trimmed and the empty ones left out. */
    public Optional<List<String>> list(String key) {
        return string(key)
                .map(value -> Arrays.stream(value.split(","))
                        .map(String::strip)
                        .filter(item -> !item.isEmpty())
                        .toList());
    }

    /**
     * Runs {@code setter}, which hands {@code key}'s value to a provider's builder; when the
     * builder rejects it with an {@code IllegalArgumentException}, throws one that names {@code key}
     * and the origin before the builder's message: {@code key (from origin): why}.
     */
    public void apply(String key, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name(key) + " (from " + origin + "): " + e.getMessage(), e);
        }
    }

    /**
     * The exception for a wrong value: {@code key = 'value' (from origin): why}, the value
     * {@linkplain #redact redacted}.
     */
    public IllegalArgumentException invalid(String key, String value, String why) {
        return new IllegalArgumentException(name(key) + " = '" + redact(value) + "' (from " + origin + "): " + why);
    }

    /**
     * {@code key = 'value' (from origin)}, or {@code key (not set in origin; default
     * 'defaultValue')}, for messages; the value {@linkplain #redact redacted}.
     */
    public String describe(String key, String defaultValue) {
        String name = name(key);
        return string(key)
                .map(v -> name + " = '" + redact(v) + "' (from " + origin + ")")
                .orElse(name + " (not set in " + origin + "; default '" + defaultValue + "')");
    }

    /** {@code value} without a password it may carry as a URI's user info or a {@code password=} parameter. */
    public static String redact(String value) {
        return value.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("(://[^/:@]*:)[^/@]*@", "$1***@");
    }

    @Override
    public String toString() {
        return "ProviderSettings[" + origin + "]";
    }
}
