package io.lockkit.cli;

import io.lockkit.DistributedLockFactory;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ProviderFactories;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The backend a command talks to: the provider whose {@link LockProviderFactory} takes the URI's
 * scheme ({@code redis://}, {@code rediss://}, {@code jdbc:postgresql:}, a third party's), built
 * from the global options, and a factory over it that the command uses for inspection only.
 * Closing it closes both; nothing is held, so nothing is released.
 *
 * <p>Design notes: the options become the provider's own keys ({@code lockkit.<name>.*}), each
 * only when the provider declares it: the URI under the factory's URI key, {@code --timeout},
 * {@code --key-prefix}, {@code --cacert} (a PEM trust store), the CLI's client name, and any
 * {@code --set KEY=VALUE}. Credentials given apart from a hierarchical URI ({@code redis://}) are
 * put into its user info, as the URI itself may carry them (any character escaped); for an opaque
 * one ({@code jdbc:postgresql://…}) they become the provider's user and password keys. Only
 * redacted URIs are ever printed, and a message about a key names the option that set it.
 */
final class Target implements AutoCloseable {

    /** How the CLI's connections show in {@code CLIENT LIST} (providers with a client-name key). */
    static final String CLIENT_NAME = "lockkit-cli";

    /** Where the settings come from, in messages. */
    static final String ORIGIN = "the command line";

    /** How a provider says that a jar it needs is missing (a JDBC driver: "… on the class path; add <coordinates>"). */
    private static final String MISSING_JAR = "on the class path; add ";

    /** What the CLI adds to that: how its class path takes a jar ({@code java -jar} ignores {@code -cp}). */
    static final String CLASS_PATH_HINT = ". The runnable jar carries the PostgreSQL driver only; run it with that jar"
            + " beside it: java -cp lockkit-cli.jar:<driver>.jar io.lockkit.cli.LockkitCli (on Windows ';' instead"
            + " of ':')";

    private final DistributedLockFactory factory;
    private final String description;
    private final String at;

    private Target(DistributedLockFactory factory, String description, String at) {
        this.factory = factory;
        this.description = description;
        this.at = at;
    }

    DistributedLockFactory factory() {
        return factory;
    }

    /** The backend's address, without its password, for messages. */
    String description() {
        return description;
    }

    /** The backend and its address for messages: "Redis at redis://cache:6379 (key prefix lockkit)". */
    String at() {
        return at;
    }

    static Target open(LockkitCli options) {
        Resolved resolved = resolve(options);
        LockProvider provider;
        try {
            provider = resolved.factory()
                    .create(ProviderSettings.of(resolved.settings(), ORIGIN), ProviderEnvironment.none());
        } catch (IllegalArgumentException | IllegalStateException e) {
            String message = resolved.inOptionTerms(String.valueOf(e.getMessage()));
            throw new UsageException(message.contains(MISSING_JAR) ? message + CLASS_PATH_HINT : message);
        }
        DistributedLockFactory factory = DistributedLockFactory.builder(provider)
                .subscriptionLinger(java.time.Duration.ZERO)
                .build();
        return new Target(factory, resolved.description(), resolved.at(resolved.description()));
    }

    /**
     * The provider's factory and settings the options name: what {@link #open} builds, and what
     * failures describe.
     *
     * @param factory the provider's factory
     * @param settings the provider's keys and their values
     * @param shown the URI without its password
     * @param kind the backend in a word or two, for messages ("Redis", "the database")
     * @param optionOfKey which option set a key, to name it in messages
     */
    record Resolved(
            LockProviderFactory factory,
            Map<String, String> settings,
            String shown,
            String kind,
            Map<String, String> optionOfKey) {

        /** The URI shown, with the key prefix when the provider has one. */
        String description() {
            String prefix = settings.get(key(factory, "key-prefix"));
            return prefix == null ? shown : shown + " (key prefix " + prefix + ")";
        }

        /** "Redis at {@code address}", "The database at {@code address}". */
        String at(String address) {
            return Character.toUpperCase(kind.charAt(0)) + kind.substring(1) + " at " + address;
        }

        /** {@code message} with the keys the options set replaced by the options' names. */
        String inOptionTerms(String message) {
            String result = message.startsWith("lockkit: ") ? message.substring("lockkit: ".length()) : message;
            List<String> keys = optionOfKey.keySet().stream()
                    .sorted(Comparator.comparingInt(String::length).reversed())
                    .toList();
            for (String key : keys) {
                result = result.replace(key, optionOfKey.get(key));
            }
            return result;
        }
    }

    /** The provider and its settings from {@code --uri} (or the environment, or the default) and the other options. */
    static Resolved resolve(LockkitCli options) {
        LockkitCli.Environment env = options.environment();
        String text = uriText(options, env);
        LockProviderFactory factory = factoryFor(text);
        Set<String> declared =
                factory.settings().stream().map(ProviderSetting::key).collect(Collectors.toSet());
        String uriKey = factory.uriKey()
                .orElseThrow(() ->
                        new UsageException("the " + factory.name() + " provider takes URIs but names no key for them"));
        Map<String, String> settings = new LinkedHashMap<>();
        Map<String, String> optionOfKey = new LinkedHashMap<>();
        String password = options.password != null
                ? new String(options.password)
                : env.variable(LockkitCli.passwordVariable(factory.name()));
        String shown;
        URI hierarchical = hierarchical(text);
        if (hierarchical != null) {
            URI uri = withCredentials(hierarchical, options.user, password);
            settings.put(uriKey, uri.toString());
            shown = redact(uri);
        } else {
            settings.put(uriKey, text);
            shown = ProviderSettings.redact(text);
            if (options.user != null) {
                put(settings, optionOfKey, declared, factory, "user", options.user, "--user");
            }
            if (password != null) {
                put(settings, optionOfKey, declared, factory, "password", password, "--password");
            }
        }
        optionOfKey.put(uriKey, "--uri");
        putOptions(options, settings, optionOfKey, declared, factory);
        return new Resolved(factory, settings, shown, kind(factory), optionOfKey);
    }

    /** {@code --uri}, else the URI variables, else the default, stripped. */
    private static String uriText(LockkitCli options, LockkitCli.Environment env) {
        String text = options.uri;
        if (text == null || text.isBlank()) {
            text = env.variable(LockkitCli.URI_VARIABLE);
        }
        if (text == null || text.isBlank()) {
            text = env.variable(LockkitCli.REDIS_URI_VARIABLE);
        }
        if (text == null || text.isBlank()) {
            text = LockkitCli.DEFAULT_URI;
        }
        return text.strip();
    }

    /** The provider that takes {@code text}; a usage error when none does or two claim it. */
    private static LockProviderFactory factoryFor(String text) {
        try {
            return ProviderFactories.forUri(text, Target.class.getClassLoader());
        } catch (IllegalArgumentException e) {
            String message = String.valueOf(e.getMessage());
            throw new UsageException("--uri: " + (message.startsWith("lockkit: ") ? message.substring(9) : message));
        } catch (IllegalStateException e) { // two providers of one name
            throw new UsageException(e.getMessage());
        }
    }

    /** The settings of the options other than the URI and its credentials: --timeout, --key-prefix, --cacert, --set. */
    private static void putOptions(
            LockkitCli options,
            Map<String, String> settings,
            Map<String, String> optionOfKey,
            Set<String> declared,
            LockProviderFactory factory) {
        if (options.timeout != null) {
            String timeout = options.timeout.toMillis() + "ms";
            put(settings, optionOfKey, declared, factory, "timeout", timeout, "--timeout");
            if (declared.contains(key(factory, "connect-timeout"))) {
                put(settings, optionOfKey, declared, factory, "connect-timeout", timeout, "--timeout");
            }
        }
        if (options.keyPrefix != null) {
            put(settings, optionOfKey, declared, factory, "key-prefix", options.keyPrefix, "--key-prefix");
        } else if (declared.contains(key(factory, "key-prefix"))) {
            settings.put(key(factory, "key-prefix"), LockkitCli.DEFAULT_KEY_PREFIX);
        }
        if (options.caCert != null) {
            put(settings, optionOfKey, declared, factory, "tls.trust-store", options.caCert.toString(), "--cacert");
            put(settings, optionOfKey, declared, factory, "tls.trust-store-type", "PEM", "--cacert");
        }
        if (declared.contains(key(factory, "client-name"))) {
            settings.put(key(factory, "client-name"), CLIENT_NAME);
        }
        for (Map.Entry<String, String> set : options.settings.entrySet()) {
            if (!declared.contains(set.getKey())) {
                throw new UsageException("--set " + set.getKey() + ": the " + factory.name()
                        + " provider has no such key; it has " + String.join(", ", new java.util.TreeSet<>(declared)));
            }
            settings.put(set.getKey(), set.getValue());
            optionOfKey.putIfAbsent(set.getKey(), "--set " + set.getKey());
        }
    }

    /** Sets {@code lockkit.<name>.<setting>}, or fails naming {@code option} when the provider has no such key. */
    private static void put(
            Map<String, String> settings,
            Map<String, String> optionOfKey,
            Set<String> declared,
            LockProviderFactory factory,
            String setting,
            String value,
            String option) {
        String key = key(factory, setting);
        if (!declared.contains(key)) {
            throw new UsageException(
                    option + " does not apply to the " + factory.name() + " provider (it has no " + key + ")");
        }
        settings.put(key, value);
        optionOfKey.put(key, option);
    }

    private static String key(LockProviderFactory factory, String setting) {
        return "lockkit." + factory.name() + "." + setting;
    }

    private static String kind(LockProviderFactory factory) {
        return switch (factory.name()) {
            case "redis" -> "Redis";
            case "jdbc" -> "the database";
            default -> "the " + factory.name() + " backend";
        };
    }

    /** {@code text} as a hierarchical URI with a host ({@code redis://h:1}), or null for an opaque one ({@code jdbc:…}). */
    private static @Nullable URI hierarchical(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            if (text.indexOf("://") > 0 && text.indexOf("://") == text.indexOf(':')) {
                throw new UsageException("--uri is not a URI: " + e.getReason() + " at index "
                        + e.getIndex()); // not the text: it may hold a password
            }
            return null;
        }
        if (uri.isOpaque() || uri.getRawAuthority() == null) {
            return null;
        }
        if (uri.getHost() == null) {
            throw new UsageException("--uri names no host: " + redact(uri));
        }
        return uri;
    }

    /** {@code uri} with {@code --user} and the password (option, environment or its own) in its user info. */
    private static URI withCredentials(URI uri, @Nullable String optionUser, @Nullable String optionPassword) {
        String uriUser = null;
        String uriPassword = null;
        if (uri.getUserInfo() != null) {
            String info = uri.getUserInfo();
            int colon = info.indexOf(':');
            uriUser = colon < 0 ? info : info.substring(0, colon);
            uriPassword = colon < 0 ? null : info.substring(colon + 1);
        }
        String password = optionPassword != null ? optionPassword : uriPassword;
        String user = optionUser != null ? optionUser : uriUser;
        if (user != null && user.isEmpty()) {
            user = null;
        }
        if (password == null) {
            if (user != null) {
                throw new UsageException("user '" + user
                        + "' needs a password: --password (asks when given no value), the password variable"
                        + " (--help) or the URI's user:password@");
            }
            return withUserInfo(uri, null);
        }
        // The multi-argument URI constructor quotes every character a user info cannot hold, '%' included.
        return withUserInfo(uri, (user != null ? user : "") + ":" + password);
    }

    private static URI withUserInfo(URI uri, @Nullable String userInfo) {
        try {
            return new URI(
                    uri.getScheme().toLowerCase(Locale.ROOT),
                    userInfo,
                    uri.getHost(),
                    uri.getPort(),
                    uri.getPath(),
                    uri.getQuery(),
                    null);
        } catch (URISyntaxException e) {
            throw new UsageException("--uri cannot take these credentials: " + e.getReason());
        }
    }

    /** The URI without its password. */
    static String redact(URI uri) {
        if (uri.getRawUserInfo() == null) {
            return uri.toString();
        }
        String info = uri.getRawUserInfo();
        int colon = info.indexOf(':');
        String shown = colon < 0 ? info : info.substring(0, colon) + ":***";
        return uri.toString().replace(info + "@", shown + "@");
    }

    @Override
    public void close() {
        factory.close();
    }

    /** A bad option value found while connecting: reported like picocli's usage errors (exit 2). */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(@Nullable String message) {
            super(message);
        }
    }
}
