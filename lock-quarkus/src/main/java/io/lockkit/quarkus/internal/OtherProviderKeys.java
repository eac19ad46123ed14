package io.lockkit.quarkus.internal;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.support.ProviderFactories;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The keys of another provider's section, {@code quarkus.lockkit.<name>.*} for a provider factory on
 * the application's class path that lockkit's mapping does not name: which keys are Quarkus' to
 * report, and a warning for each key the provider does not declare, listing the ones it does.
 * Stateless and thread-safe.
 */
// Design notes.
// - LockkitRuntimeConfig.otherProviders() takes every quarkus.lockkit.<section>.<setting> whose
//   section is no member of lockkit's mappings (MAPPED), so Quarkus reports none of them; lockkit
//   reports the undeclared ones of a present provider here, and lock-cdi the rest (a section no
//   provider has: its nearest key), so that each mistyped key is reported once.
// - The unknown keys are lock-cdi's (LockkitConfig.unknownKeys): one notion of a known key, whatever
//   the runtime. Only the message adds the provider's keys: a setting misspelt in a third party's
//   section has no better guess than the short list of what that provider reads.
public final class OtherProviderKeys {

    /**
     * The members of lockkit's mappings right under {@code quarkus.lockkit.} (LockkitRuntimeConfig's
     * and LockkitBuildTimeConfig's): a key under one of them is no other provider's.
     */
    public static final Set<String> MAPPED = Set.of(
            "provider",
            "client-id",
            "startup",
            "watchdog-lease",
            "drain-timeout",
            "health",
            "redis",
            "jdbc",
            "leadership",
            "devservices",
            "metrics");

    private static final String PLAIN = "lockkit.";

    private static final System.Logger LOG = System.getLogger(OtherProviderKeys.class.getName());

    private OtherProviderKeys() {}

    /**
     * The section of {@code key} (a {@code lockkit.*} key) when the mapping's catch-all takes its
     * {@code quarkus.lockkit.*} twin: {@code memo} for {@code lockkit.memo.label}; null for lockkit's own
     * keys, and for a key with no setting after its section.
     */
    static @Nullable String otherSection(String key) {
        if (!key.startsWith(PLAIN)) {
            return null;
        }
        String rest = key.substring(PLAIN.length());
        int dot = rest.indexOf('.');
        if (dot <= 0 || dot == rest.length() - 1) {
            return null;
        }
        String section = rest.substring(0, dot);
        return MAPPED.contains(section) ? null : section;
    }

    /** Whether {@code key} is in the section of a provider factory {@code loader} offers: lockkit reports it here. */
    static boolean reportedHere(String key, ClassLoader loader) {
        String section = otherSection(key);
        return section != null && factories(loader).containsKey(section);
    }

    /** Logs {@link #warnings} as warnings. */
    public static void report(LockkitConfig config, ClassLoader loader) {
        for (String warning : warnings(config, loader)) {
            LOG.log(System.Logger.Level.WARNING, warning);
        }
    }

    /**
     * One message for each key set in a present provider's section that the provider does not
     * declare, naming the key and the provider's keys as the application spells them.
     */
    public static List<String> warnings(LockkitConfig config, ClassLoader loader) {
        Map<String, LockProviderFactory> factories = factories(loader);
        List<String> warnings = new ArrayList<>();
        config.unknownKeys().forEach((key, meant) -> {
            String section = otherSection(key);
            LockProviderFactory factory = section == null ? null : factories.get(section);
            if (factory != null) {
                warnings.add(warning(config, key, meant, factory));
            }
        });
        return warnings;
    }

    private static String warning(LockkitConfig config, String key, String meant, LockProviderFactory factory) {
        List<String> declared = new ArrayList<>();
        for (ProviderSetting setting : factory.settings()) {
            declared.add(setting.key());
        }
        String guess = declared.contains(meant) ? "; did you mean " + config.name(meant) + "?" : ".";
        List<String> named = declared.stream().map(config::name).toList();
        return "lockkit: unknown configuration key " + config.name(key) + " is ignored" + guess + " The "
                + factory.name() + " provider reads "
                + (named.isEmpty() ? "no keys" : String.join(", ", named)) + ".";
    }

    /** The provider factories {@code loader} offers; none when they cannot be loaded (the start reports that). */
    private static Map<String, LockProviderFactory> factories(ClassLoader loader) {
        try {
            return ProviderFactories.available(loader);
        } catch (RuntimeException | ServiceConfigurationError e) {
            LOG.log(System.Logger.Level.DEBUG, "lockkit: the provider factories cannot be loaded", e);
            return Map.of();
        }
    }
}
