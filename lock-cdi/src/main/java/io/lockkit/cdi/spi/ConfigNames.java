package io.lockkit.cdi.spi;

import java.util.List;

/**
 * How a runtime's applications spell lockkit's configuration keys, so that lockkit's messages name
 * the key an application sets: Quarkus' {@code quarkus.lockkit.redis.uri} for {@code
 * lockkit.redis.uri}. Registered as a {@link java.util.ServiceLoader} service ({@code
 * META-INF/services/io.lockkit.cdi.spi.ConfigNames}) beside lock-cdi, and used when lockkit reads
 * MicroProfile Config; the first one found is used. Asked while a message is built, from any
 * thread: implementations are thread-safe.
 */
public interface ConfigNames {

    /**
     * The name an application sets {@code key} (a {@code lockkit.*} key) under; the key itself
     * where the runtime has no other name for it.
     */
    String name(String key);

    /**
     * Keys of the runtime's own, as {@code lockkit.*} keys that {@link #name} maps (Quarkus'
     * build-time Dev Services keys): lockkit does not read them, but offers them when it guesses
     * which key a mistyped one means.
     */
    default List<String> runtimeKeys() {
        return List.of();
    }

    /**
     * Whether the runtime itself warns about {@code key} (a {@code lockkit.*} name nobody reads),
     * under the name {@link #name} gives; lockkit then does not warn about it again.
     */
    default boolean warnsAboutUnknown(String key) {
        return false;
    }
}
