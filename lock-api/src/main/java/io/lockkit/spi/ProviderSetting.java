package io.lockkit.spi;

import org.jspecify.annotations.Nullable;

/**
 * One configuration key a {@link LockProviderFactory} reads: its full name ({@code
 * lockkit.redis.uri}), its default as users would write it (null when there is none, e.g. a
 * password), and one sentence saying what it sets, for documentation and typo hints.
 *
 * @param key the full key, {@code lockkit.<provider name>.<setting>}
 * @param defaultValue the value used when the key is not set, or null
 * @param description what the key sets, one sentence
 */
public record ProviderSetting(String key, @Nullable String defaultValue, String description) {

    /**
     * @throws IllegalArgumentException when {@code key} does not start with {@code lockkit.} or
     *     {@code description} is blank
     */
    public ProviderSetting {
        if (key == null || !key.startsWith("lockkit.") || key.length() == "lockkit.".length()) {
            throw new IllegalArgumentException("key must start with 'lockkit.': " + key);
        }
        if (description == null || description.isBlank()) {
            throw new IllegalArgumentException("description must not be null or blank (key " + key + ")");
        }
    }
}
