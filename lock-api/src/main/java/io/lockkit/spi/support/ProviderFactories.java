package io.lockkit.spi.support;

import io.lockkit.spi.LockProviderFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Finds the {@link LockProviderFactory} services of a class loader, by name or by URI scheme, for
 * containers and tools that build a provider from configuration. Stateless and thread-safe; each
 * call loads the services again.
 */
public final class ProviderFactories {

    /**
     * The artifact that brings each of lockkit's own providers, for the message when one is
     * missing: a factory that is not on the class path cannot say where it lives, so the names of
     * the ones lockkit publishes are kept here.
     */
    private static final Map<String, String> LOCKKIT_ARTIFACTS =
            Map.of("redis", "io.lockkit:lock-jedis", "jdbc", "io.lockkit:lock-jdbc");

    private ProviderFactories() {}

    /**
     * The factories {@code loader} offers as services, by name.
     *
     * @throws IllegalStateException when two factories have the same name, or a name that does
     *     not match {@link LockProviderFactory#NAME}
     */
    public static Map<String, LockProviderFactory> available(ClassLoader loader) {
        Map<String, LockProviderFactory> byName = new TreeMap<>();
        for (LockProviderFactory factory : ServiceLoader.load(LockProviderFactory.class, loader)) {
            String name = factory.name();
            if (name == null || !LockProviderFactory.NAME.matcher(name).matches()) {
                throw new IllegalStateException(
                        "lockkit: the provider factory " + factory.getClass().getName()
                                + " has the name '" + name + "'; a name is lower-case letters, digits and dashes ("
                                + LockProviderFactory.NAME.pattern() + ")");
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
    public static LockProviderFactory named(String name, ClassLoader loader) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be null or blank");
        }
        Map<String, LockProviderFactory> available = available(loader);
        String key = name.strip().toLowerCase(Locale.ROOT);
        LockProviderFactory factory = available.get(key);
        if (factory == null) {
            String artifact = LOCKKIT_ARTIFACTS.get(key);
            throw new IllegalArgumentException("lockkit: no lock provider named '" + name + "' is on the class path"
                    + (artifact == null ? "" : ": add a dependency on " + artifact) + "; " + present(available));
        }
        return factory;
    }

    /**
     * The factory whose {@link LockProviderFactory#uriSchemes()} include {@code uri}'s scheme (the
     * longest that matches).
     *
     * @throws IllegalArgumentException when none does, naming the schemes the present providers
     *     accept
     */
    public static LockProviderFactory forUri(String uri, ClassLoader loader) {
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

    private static String present(Map<String, LockProviderFactory> available) {
        return available.isEmpty()
                ? "no lock provider is on the class path"
                : "present: " + available.keySet().stream().collect(Collectors.joining(", "));
    }
}
