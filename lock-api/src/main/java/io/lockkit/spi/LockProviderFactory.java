package io.lockkit.spi;

import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Builds a {@link LockProvider} from configuration, so a container (lock-cdi, the Quarkus
 * extension) and tools (the operator CLI) can use a backend they were not written for. A provider
 * ships one as a {@link ServiceLoader} service ({@code
 * META-INF/services/io.lockkit.spi.LockProviderFactory}); users select it by {@link #name()} with
 * {@code lockkit.provider=<name>}, or, in tools that take a URI, by one of its {@link
 * #uriSchemes()}; {@link io.lockkit.spi.support.ProviderFactories} finds them.
 *
 * <p>A factory reads its own keys, {@code lockkit.<name>.*}, and declares every one of them in
 * {@link #settings()} with its default and a sentence for users: containers report any other key
 * under {@code lockkit.<name>.} as a typo of the nearest declared one, and list the declared ones
 * in their documentation. Implementations are stateless and thread-safe, with a public no-argument
 * constructor.
 */
public interface LockProviderFactory {

    /** What {@link #name()} may be: lower-case letters, digits and dashes, starting with a letter. */
    Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

    /**
     * The provider's name, {@code lockkit.provider}'s value that selects it ({@code redis},
     * {@code jdbc}, a third party's); matches {@link #NAME}, and is the second segment of its keys.
     */
    String name();

    /** Every key the factory reads, each under {@code lockkit.<name>.}. */
    List<ProviderSetting> settings();

    /**
     * The URI schemes that name this provider's backend, for tools given a URI: {@code redis} and
     * {@code rediss}; {@code jdbc:postgresql}. A URI has one of them when it starts with the scheme
     * followed by {@code :}. Empty (the default) when the provider is not named by URIs.
     */
    default Set<String> uriSchemes() {
        return Set.of();
    }

    /**
     * The key a URI with one of the {@link #uriSchemes()} sets ({@code lockkit.redis.uri}); tools
     * put the URI they were given under it. Empty exactly when {@link #uriSchemes()} is.
     */
    default Optional<String> uriKey() {
        return Optional.empty();
    }

    /**
     * A new provider, configured by {@code settings} (read at once: a later change of the source
     * is not seen), using what {@code environment} offers. The caller owns the provider and closes
     * it.
     *
     * @throws IllegalArgumentException naming the key and where its value came from ({@link
     *     ProviderSettings#invalid}), when a value is wrong or keys contradict each other
     * @throws io.lockkit.LockException when the provider must reach its backend to be built (a
     *     Sentinel asked for its master, a schema created) and cannot, within the provider's
     *     timeout
     */
    LockProvider create(ProviderSettings settings, ProviderEnvironment environment);

    /**
     * Which backend {@code settings} name, for messages: the keys that name it with their values
     * (passwords redacted), e.g. {@code lockkit.redis.uri = 'redis://cache:6379' (from
     * MicroProfile Config)}.
     */
    String describeTarget(ProviderSettings settings);
}
