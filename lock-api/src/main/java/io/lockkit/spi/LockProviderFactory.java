package io.lockkit.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Builds a {@link LockProvider} from configuration, so a container (lock-cdi, the Quarkus
 * extension) and tools (the operator CLI) can use a backend they were not written for. A provider
 * ships one as a {@link ServiceLoader} service ({@code
 * META-INF/services/io.lockkit.spi.LockProviderFactory}); users select it by {@link #name()} with
 * {@code lockkit.provider=<name>}, or, in tools that take a URI, by one of its {@link
 * #uriSchemes()}.
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

    /**
     * The factories {@code loader} offers as services, by name.
     *
     * @throws IllegalStateException when two factories have the same name, or a name that does
     *     not match {@link #NAME}
     */
    static Map<String, LockProviderFactory> available(ClassLoader loader) {
        Map<String, LockProviderFactory> byName = new TreeMap<>();
        for (LockProviderFactory factory : ServiceLoader.load(LockProviderFactory.class, loader)) {
            String name = factory.name();
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalStateException(
                        "lockkit: the provider factory " + factory.getClass().getName()
                                + " has the name '" + name + "'; a name is lower-case letters, digits and dashes ("
                                + NAME.pattern() + ")");
            }
            LockProviderFactory other = byName.putIfAbsent(name, factory);
            if (other != null) {
                throw new IllegalStateException("lockkit: two provider factories are named '" + name + "': "
                        + other.getClass().getName() + " and "
                        + factory.getClass().getName()
                        + "; keep one of their artifacts on the class path");
            }
        }
        return byName;
    }

    /**
     * The factory named {@code name} that {@code loader} offers.
     *
     * @throws IllegalArgumentException when there is none, saying which artifact provides it when
     *     it is one of lockkit's, and which providers are there
     */
    static LockProviderFactory named(String name, ClassLoader loader) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be null or blank");
        }
        Map<String, LockProviderFactory> available = available(loader);
        LockProviderFactory factory = available.get(name.strip().toLowerCase(Locale.ROOT));
        if (factory == null) {
            throw new IllegalArgumentException("lockkit: no lock provider named '" + name + "' is on the class path"
                    + artifactHint(name) + "; " + present(available));
        }
        return factory;
    }

    /**
     * The factory whose {@link #uriSchemes()} include {@code uri}'s scheme.
     *
     * @throws IllegalArgumentException when none does, naming the schemes the present providers
     *     accept
     */
    static LockProviderFactory forUri(String uri, ClassLoader loader) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("uri must not be null or blank");
        }
        Map<String, LockProviderFactory> available = available(loader);
        LockProviderFactory best = null;
        int bestLength = -1;
        String lower = uri.strip().toLowerCase(Locale.ROOT);
        for (LockProviderFactory factory : available.values()) {
            for (String scheme : factory.uriSchemes()) {
                String prefix = scheme.toLowerCase(Locale.ROOT) + ":";
                if (lower.startsWith(prefix) && prefix.length() > bestLength) {
                    best = factory;
                    bestLength = prefix.length();
                }
            }
        }
        if (best == null) {
            List<String> schemes = new ArrayList<>();
            available.values().forEach(f -> f.uriSchemes().forEach(s -> schemes.add(s + ":")));
            throw new IllegalArgumentException("lockkit: no lock provider on the class path takes a URI like '"
                    + uri.strip().replaceAll("(://[^/:@]*:)[^/@]*@", "$1***@") + "'"
                    + (schemes.isEmpty() ? "" : "; the present ones take " + String.join(", ", schemes)));
        }
        return best;
    }

    private static String artifactHint(String name) {
        return switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "redis" -> ": add a dependency on io.lockkit:lock-jedis";
            case "jdbc" -> ": add a dependency on io.lockkit:lock-jdbc";
            default -> "";
        };
    }

    private static String present(Map<String, LockProviderFactory> available) {
        return available.isEmpty()
                ? "no lock provider is on the class path"
                : "present: " + available.keySet().stream().collect(Collectors.joining(", "));
    }
}
