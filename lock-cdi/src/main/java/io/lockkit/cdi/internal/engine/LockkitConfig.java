package io.lockkit.cdi.internal.engine;

import io.lockkit.LockOptions;
import io.lockkit.cdi.spi.ConfigNames;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ProviderFactories;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@code lockkit.*} settings, from MicroProfile Config when an implementation is present, else
 * from system properties, else from environment variables ({@code lockkit.redis.uri} →
 * {@code LOCKKIT_REDIS_URI}). Values are read once, when the factory is built. lock-cdi's own keys
 * are here; a provider's ({@code lockkit.<provider>.*}) are its factory's, read through
 * {@link #providerSettings()}.
 */
public final class LockkitConfig {

    public static final String PROVIDER = "lockkit.provider";
    public static final String WATCHDOG_LEASE = "lockkit.watchdog-lease";
    public static final String STARTUP = "lockkit.startup";
    public static final String DRAIN_TIMEOUT = "lockkit.drain-timeout";
    public static final String HEALTH_ENABLED = "lockkit.health.enabled";
    public static final String HEALTH_TIMEOUT = "lockkit.health.timeout";
    public static final String HEALTH_MAX_LOSSES = "lockkit.health.max-losses-per-minute";
    public static final String CLIENT_ID = "lockkit.client-id";
    public static final String METRICS_ENABLED = "lockkit.metrics.enabled";
    /** A leadership's lease; {@code <name>} stands for the leadership's name, and a key set under it declares one. */
    public static final String LEADERSHIP_LEASE = "lockkit.leadership.<name>.lease";
    /** How long a leadership sits out after stepping down; {@code <name>} as in {@link #LEADERSHIP_LEASE}. */
    public static final String LEADERSHIP_REJOIN_DELAY = "lockkit.leadership.<name>.rejoin-delay";

    private static final String NAME = "<name>";
    private static final String LEADERSHIP_PREFIX = "lockkit.leadership.";
    /** The settings of one leadership: what follows its name in {@link #LEADERSHIP_LEASE} and its siblings. */
    private static final List<String> LEADERSHIP_SETTINGS = List.of("lease", "rejoin-delay");

    /**
     * Every key lock-cdi itself reads; the providers' keys ({@code lockkit.redis.*}, {@code lockkit.jdbc.*},
     * a third party's) are their factories' {@link LockProviderFactory#settings()}.
     */
    static final List<String> KEYS = List.of(
            PROVIDER,
            WATCHDOG_LEASE,
            STARTUP,
            DRAIN_TIMEOUT,
            HEALTH_ENABLED,
            HEALTH_TIMEOUT,
            HEALTH_MAX_LOSSES,
            CLIENT_ID,
            METRICS_ENABLED,
            LEADERSHIP_LEASE,
            LEADERSHIP_REJOIN_DELAY);

    private static final System.Logger LOG = System.getLogger(LockkitConfig.class.getName());

    /** Keys as lockkit spells them, where no runtime spells them otherwise. */
    private static final ConfigNames PLAIN = key -> key;

    private final Function<String, Optional<String>> source;
    private final String origin;
    private final Supplier<Iterable<String>> names;
    /** How the application spells the keys, for messages: the runtime's {@link ConfigNames}, or as they are. */
    private final ConfigNames naming;
    /** Every key someone reads: lock-cdi's and the present providers' (found at the first question). */
    private volatile @Nullable List<String> known;

    LockkitConfig(Function<String, Optional<String>> source, String origin) {
        this(source, origin, List::of);
    }

    LockkitConfig(Function<String, Optional<String>> source, String origin, Supplier<Iterable<String>> names) {
        this(source, origin, names, PLAIN);
    }

    LockkitConfig(
            Function<String, Optional<String>> source,
            String origin,
            Supplier<Iterable<String>> names,
            ConfigNames naming) {
        this.source = source;
        this.origin = origin;
        this.names = names;
        this.naming = naming;
    }

    /**
     * Settings read from {@code source} (a key to its value, empty when unset), for a framework with
     * a configuration of its own (Spring's {@code Environment}); {@code names} lists the keys it
     * defines, for the typo check, and {@code origin} says where values come from, for messages.
     */
    public static LockkitConfig of(
            Function<String, Optional<String>> source, String origin, Supplier<Iterable<String>> names) {
        return new LockkitConfig(source, origin, names);
    }

    /** MicroProfile Config if its API and an implementation are present, else system properties and environment. */
    public static LockkitConfig load() {
        if (present("org.eclipse.microprofile.config.ConfigProvider")) {
            try {
                return new LockkitConfig(
                        MicroProfileConfig.source(),
                        "MicroProfile Config",
                        MicroProfileConfig::names,
                        installedNaming());
            } catch (RuntimeException | LinkageError e) {
                // The API without an implementation: ConfigProvider throws IllegalStateException.
                LOG.log(System.Logger.Level.DEBUG, "MicroProfile Config unusable, reading system properties", e);
            }
        }
        return system(
                System.getProperties().entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(
                                e -> String.valueOf(e.getKey()), e -> String.valueOf(e.getValue()), (a, b) -> a)),
                System.getenv());
    }

    /** Settings from these system properties, falling back to these environment variables. */
    static LockkitConfig system(Map<String, String> properties, Map<String, String> environment) {
        return new LockkitConfig(
                key -> {
                    String value = properties.get(key);
                    if (value == null) {
                        value = environment.get(environmentName(key));
                    }
                    return Optional.ofNullable(value).map(String::trim).filter(v -> !v.isEmpty());
                },
                "system properties and environment",
                () -> {
                    List<String> all = new ArrayList<>(properties.keySet());
                    for (String variable : environment.keySet()) {
                        if (variable.startsWith("LOCKKIT_")) {
                            all.add(variable);
                        }
                    }
                    return all;
                });
    }

    /**
     * Every key that is read: lock-cdi's ({@link #KEYS}) and those the providers on the application's
     * class path declare.
     */
    List<String> knownKeys() {
        List<String> keys = known;
        if (keys == null) {
            keys = knownKeys(applicationLoader());
            known = keys;
        }
        return keys;
    }

    /** lock-cdi's keys and those the providers {@code loader} finds declare. */
    public static List<String> knownKeys(ClassLoader loader) {
        List<String> keys = new ArrayList<>(KEYS);
        try {
            for (LockProviderFactory factory :
                    ProviderFactories.available(loader).values()) {
                factory.settings().forEach(setting -> keys.add(setting.key()));
            }
        } catch (RuntimeException | ServiceConfigurationError e) {
            // Two providers of one name, or one that cannot be loaded: the start reports it.
            LOG.log(System.Logger.Level.DEBUG, "lockkit: the providers' keys are unknown", e);
        }
        return List.copyOf(keys);
    }

    /** These settings, as a provider's factory reads its own keys; its messages name keys as {@link #name} does. */
    public ProviderSettings providerSettings() {
        return ProviderSettings.of(this::string, origin, this::name);
    }

    /**
     * The name the application sets {@code key} under, for messages: {@code lockkit.redis.uri}, or the
     * runtime's spelling of it ({@link ConfigNames}: {@code quarkus.lockkit.redis.uri} in Quarkus).
     */
    public String name(String key) {
        try {
            String name = naming.name(key);
            return name == null || name.isBlank() ? key : name;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "lockkit: no runtime name for " + key, e);
            return key;
        }
    }

    /** Whether the runtime warns about the unknown key {@code key} itself, so lockkit does not warn again. */
    public boolean warnedByRuntime(String key) {
        try {
            return naming.warnsAboutUnknown(key);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The first {@link ConfigNames} service beside lock-cdi, else keys as they are. */
    private static ConfigNames installedNaming() {
        try {
            for (ConfigNames found : ServiceLoader.load(ConfigNames.class, LockkitConfig.class.getClassLoader())) {
                return found;
            }
        } catch (ServiceConfigurationError e) {
            LOG.log(System.Logger.Level.DEBUG, "lockkit: the runtime's key names are unknown", e);
        }
        return PLAIN;
    }

    /** The application's class loader: the context class loader (a deployment's), else lock-cdi's. */
    public static ClassLoader applicationLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : LockkitConfig.class.getClassLoader();
    }

    /** The environment variable MicroProfile Config maps {@code key} to: {@code lockkit.redis.uri} → {@code LOCKKIT_REDIS_URI}. */
    static String environmentName(String key) {
        return key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /**
     * The {@code lockkit.*} keys (or {@code LOCKKIT_*} variables) the configuration defines that
     * this library does not read, each with the known key it most likely means.
     */
    public Map<String, String> unknownKeys() {
        Map<String, String> unknown = new TreeMap<>();
        List<String> keys = knownKeys();
        Set<String> known = new HashSet<>(keys);
        Map<String, String> byVariable = new HashMap<>();
        for (String key : keys) {
            byVariable.put(environmentName(key), key);
        }
        for (String name : names.get()) {
            boolean property = name.startsWith("lockkit.");
            boolean variable = name.startsWith("LOCKKIT_");
            if ((property && !known.contains(name) && leadershipName(name) == null)
                    || (variable && !byVariable.containsKey(name) && !leadershipVariable(name))) {
                unknown.put(
                        name,
                        closest(property ? name : name.toLowerCase(Locale.ROOT).replace('_', '.')));
            }
        }
        return unknown;
    }

    /**
     * The names of the leaderships the configuration declares: every {@code <name>} for which a key
     * {@code lockkit.leadership.<name>.<setting>} is set (as a property: an environment variable
     * cannot spell every name, so it only sets the value of a leadership declared so).
     *
     * @throws IllegalArgumentException naming the key, when a key under {@code lockkit.leadership.}
     *     is no leadership's setting: a leadership with a misspelt setting would lead with the
     *     wrong one
     */
    public Set<String> leadershipNames() {
        Set<String> declared = new java.util.TreeSet<>();
        List<String> wrong = new ArrayList<>();
        for (String key : names.get()) {
            if (!key.startsWith(LEADERSHIP_PREFIX)) {
                continue;
            }
            String name = leadershipName(key);
            if (name == null) {
                wrong.add(name(key) + " (did you mean " + name(closest(key)) + "?)");
            } else {
                declared.add(name);
            }
        }
        if (!wrong.isEmpty()) {
            throw new IllegalArgumentException("lockkit: no leadership reads " + String.join(", ", wrong) + " (from "
                    + origin + "); a leadership's keys are " + name(LEADERSHIP_LEASE) + " and "
                    + name(LEADERSHIP_REJOIN_DELAY));
        }
        return declared;
    }

    /** The key {@code pattern} ({@link #LEADERSHIP_LEASE}, …) of the leadership {@code name}. */
    public static String leadershipKey(String pattern, String name) {
        return pattern.replace(NAME, name);
    }

    /** The leadership {@code key} sets a known setting of, or null when it is no leadership key. */
    private static @Nullable String leadershipName(String key) {
        if (!key.startsWith(LEADERSHIP_PREFIX)) {
            return null;
        }
        String rest = key.substring(LEADERSHIP_PREFIX.length());
        int dot = rest.lastIndexOf('.');
        if (dot <= 0 || !LEADERSHIP_SETTINGS.contains(rest.substring(dot + 1))) {
            return null;
        }
        return rest.substring(0, dot);
    }

    /** Whether {@code variable} is a leadership's setting as MicroProfile Config names it in the environment. */
    private static boolean leadershipVariable(String variable) {
        String prefix = environmentName(LEADERSHIP_PREFIX);
        if (!variable.startsWith(prefix)) {
            return false;
        }
        for (String setting : LEADERSHIP_SETTINGS) {
            String suffix = "_" + environmentName(setting);
            if (variable.endsWith(suffix) && variable.length() > prefix.length() + suffix.length()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The unknown keys, each with the known key it most likely means, as one sentence to add to a
     * failure message; empty when there are none. A start that fails over a missing or wrong value
     * often has its cause here: the value was set under a misspelt key.
     */
    public String typoHints() {
        Map<String, String> unknown = unknownKeys();
        if (unknown.isEmpty()) {
            return "";
        }
        List<String> hints = new ArrayList<>();
        unknown.forEach((key, meant) -> hints.add(name(key) + " (did you mean " + name(meant) + "?)"));
        return " Unknown keys are set in " + origin + ": " + String.join(", ", hints) + ".";
    }

    /**
     * The known key nearest to {@code name} by edit distance, among the keys lockkit reads and the
     * runtime's own ({@link ConfigNames#runtimeKeys}); a per-leadership key is tried with the name
     * {@code name} would have in it ({@code lockkit.leadership.reports.leese} → {@code
     * lockkit.leadership.reports.lease}).
     */
    String closest(String name) {
        String[] segments = name.split("\\.", -1);
        String leadership = segments.length >= 4
                ? String.join(".", java.util.Arrays.asList(segments).subList(2, segments.length - 1))
                : segments.length == 3 ? segments[2] : "";
        List<String> keys = new ArrayList<>(knownKeys());
        keys.addAll(runtimeKeys());
        String best = keys.get(0);
        int bestDistance = Integer.MAX_VALUE;
        for (String pattern : keys) {
            String key = pattern.contains(NAME) && !leadership.isEmpty() ? leadershipKey(pattern, leadership) : pattern;
            int d = distance(name, key);
            if (d < bestDistance) {
                best = key;
                bestDistance = d;
            }
        }
        return best;
    }

    private List<String> runtimeKeys() {
        try {
            return naming.runtimeKeys();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }

    /** Whether lock-cdi's class loader sees {@code className}: an optional API, or the container's own class. */
    public static boolean present(String className) {
        try {
            Class.forName(className, false, LockkitConfig.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** {@code key = 'value' (from origin)}, or {@code key (not set, default value)}, for messages. */
    public String describe(String key, String defaultValue) {
        return providerSettings().describe(key, defaultValue);
    }

    /** {@code value} without a password it may carry as a URL parameter or user info. */
    static String redact(String value) {
        return ProviderSettings.redact(value);
    }

    /** Where the values come from, for messages. */
    public String origin() {
        return origin;
    }

    public Optional<String> string(String key) {
        return source.apply(key);
    }

    // The typed reads are the providers' (ProviderSettings): one parser and one wording for every key.

    public Optional<Duration> duration(String key) {
        return providerSettings().duration(key);
    }

    public Optional<Integer> integer(String key) {
        return providerSettings().integer(key);
    }

    public Optional<Boolean> bool(String key) {
        return providerSettings().bool(key);
    }

    public IllegalArgumentException invalid(String key, String value, String why) {
        return providerSettings().invalid(key, value, why);
    }

    /**
     * ISO-8601 ({@code PT2S}), or a whole number with {@code ms}, {@code s}, {@code m}, {@code h} or
     * {@code d}; bare numbers are seconds. The one parser lockkit has ({@link LockOptions#parseDuration}),
     * which the operator CLI uses too.
     */
    static Duration parseDuration(String text) {
        return LockOptions.parseDuration(text);
    }
}
