package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ProviderFactories;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Builds the library's own {@link DistributedLockFactory} from the {@code lockkit.*} configuration,
 * whatever the framework: the provider is the application's own {@link LockProvider} when it has
 * one, lock-api's in-JVM one for {@code lockkit.provider=local}, else the {@link LockProviderFactory}
 * that {@code lockkit.provider} names, found by {@link java.util.ServiceLoader}. Stateless; a
 * configuration mistake's message names the key and ends with the configuration's typo hints.
 */
// Design notes.
// - What differs between CDI and Spring is behind Inputs: how the application's provider bean,
//   the provider's environment (beans, names, threads), the container's threads and the
//   application's meter registry are found. The rules, the messages and the start-up check are here.
public final class FactoryBuild {

    /** How long a shutdown waits for running {@code @Locked} methods unless {@code lockkit.drain-timeout} says otherwise. */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

    /** The provider when {@code lockkit.provider} is not set. */
    public static final String DEFAULT_PROVIDER = "redis";

    /** lock-api's in-JVM provider, for a single process. */
    public static final String LOCAL = "local";

    /** What the framework offers the build. */
    public interface Inputs {

        /**
         * The application's own provider (a bean), or null.
         *
         * @throws IllegalStateException when several qualify, naming them
         */
        @Nullable
        LockProvider applicationProvider();

        /** What the framework offers a provider factory; {@code threadPrefix} names the provider's threads. */
        ProviderEnvironment environment(String threadPrefix);

        /** Gives {@code builder} the container's thread factory, when the framework has one. */
        default void threads(DistributedLockFactory.Builder builder) {}

        /**
         * Binds the application's meter registry to {@code builder} (only called when metrics are
         * enabled); returns what removes the meters again, or null when none were made.
         */
        default @Nullable Runnable bindMetrics(DistributedLockFactory.Builder builder) {
            return null;
        }
    }

    private FactoryBuild() {}

    /**
     * Builds the factory; {@code check}: the backend is asked its start-up question
     * ({@link OwnedFactory#check}) before the factory is built, so that a backend that does not
     * answer fails the start before the factory logs that it started.
     *
     * @throws IllegalArgumentException for a bad value, naming the key
     * @throws IllegalStateException for a missing provider or a backend that does not answer
     */
    public static OwnedFactory build(LockkitConfig config, Inputs inputs, boolean check) {
        try {
            return buildUnhinted(config, inputs, check);
        } catch (IllegalArgumentException e) {
            String hints = config.typoHints();
            throw hinted(e, hints) ? e : new IllegalArgumentException(e.getMessage() + hints, e);
        } catch (IllegalStateException e) {
            String hints = config.typoHints();
            throw hinted(e, hints) ? e : new IllegalStateException(e.getMessage() + hints, e);
        }
    }

    /** Logs a warning for each {@code lockkit.*} key nobody reads, with the key probably meant. */
    public static void reportUnknownKeys(LockkitConfig config, System.Logger log) {
        config.unknownKeys().forEach((key, meant) -> {
            if (!config.warnedByRuntime(key)) {
                log.log(
                        System.Logger.Level.WARNING,
                        "lockkit: unknown configuration key {0} is ignored; did you mean {1}?",
                        config.name(key),
                        config.name(meant));
            }
        });
    }

    /** Whether {@code e}'s message needs no {@code hints}: there are none, or it has them (the start-up check's). */
    private static boolean hinted(RuntimeException e, String hints) {
        return hints.isEmpty() || String.valueOf(e.getMessage()).endsWith(hints);
    }

    private static OwnedFactory buildUnhinted(LockkitConfig config, Inputs inputs, boolean check) {
        Duration drainTimeout = setting(config, LockkitConfig.DRAIN_TIMEOUT, DEFAULT_DRAIN_TIMEOUT);
        Chosen chosen = provider(config, inputs);
        LockProvider provider = chosen.provider();
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(provider);
        try {
            config.duration(LockkitConfig.WATCHDOG_LEASE)
                    .ifPresent(lease -> b.defaultOptions(
                            LockOptions.builder().watchdogLease(lease).build()));
        } catch (IllegalArgumentException e) {
            provider.close();
            throw new IllegalArgumentException(
                    config.name(LockkitConfig.WATCHDOG_LEASE) + " (from " + config.origin() + "): " + e.getMessage(),
                    e);
        }
        config.string(LockkitConfig.CLIENT_ID).ifPresent(id -> {
            try {
                b.clientId(id);
            } catch (IllegalArgumentException e) {
                provider.close();
                throw config.invalid(LockkitConfig.CLIENT_ID, id, String.valueOf(e.getMessage()));
            }
        });
        OwnedFactory owned = new OwnedFactory(provider, config, chosen.backend(), chosen.keys(), drainTimeout);
        if (check) {
            try {
                owned.check();
            } catch (RuntimeException e) {
                provider.close();
                throw e;
            }
        }
        inputs.threads(b);
        boolean metrics = micrometerPresent()
                && config.bool(LockkitConfig.METRICS_ENABLED).orElse(Boolean.TRUE);
        Runnable unbindMetrics = metrics ? inputs.bindMetrics(b) : null;
        DistributedLockFactory factory;
        try {
            factory = b.build();
        } catch (RuntimeException | Error e) {
            if (unbindMetrics != null) {
                OwnedFactory.removeMeters(unbindMetrics);
            }
            throw e;
        }
        return owned.open(factory, unbindMetrics);
    }

    /** The provider the factory is built over, what it is for messages, and the keys its factory reads. */
    private record Chosen(LockProvider provider, String backend, List<String> keys) {}

    private static Chosen provider(LockkitConfig config, Inputs inputs) {
        LockProvider own = inputs.applicationProvider();
        if (own != null) {
            // Closed with the factory, which owns its provider.
            return new Chosen(own, "the application's LockProvider " + own, List.of());
        }
        if (LOCAL.equals(providerName(config))) {
            return new Chosen(new LocalLockProvider(), "the in-JVM provider", List.of());
        }
        LockProviderFactory factory = providerFactory(config);
        ProviderSettings settings = config.providerSettings();
        LockProvider provider = create(factory, settings, inputs.environment("lockkit-" + factory.name()));
        return new Chosen(
                provider,
                factory.describeTarget(settings),
                factory.settings().stream().map(ProviderSetting::key).toList());
    }

    private static String providerName(LockkitConfig config) {
        return config.string(LockkitConfig.PROVIDER)
                .orElse(DEFAULT_PROVIDER)
                .strip()
                .toLowerCase(Locale.ROOT);
    }

    /**
     * The factory of the provider {@code lockkit.provider} names, found by {@link java.util.ServiceLoader}
     * through the application's class loader.
     *
     * @throws IllegalStateException naming the key, the artifact to add and the providers present, when it is missing
     */
    private static LockProviderFactory providerFactory(LockkitConfig config) {
        String name = providerName(config);
        try {
            return ProviderFactories.named(name, LockkitConfig.applicationLoader());
        } catch (IllegalArgumentException e) {
            String why = String.valueOf(e.getMessage()).replaceFirst("^lockkit: ", "");
            throw new IllegalStateException(
                    "lockkit: " + config.describe(LockkitConfig.PROVIDER, DEFAULT_PROVIDER) + ": " + why + "; or set "
                            + config.name(LockkitConfig.PROVIDER) + "=" + LOCAL
                            + " for a single process, or produce a LockProvider"
                            + " or DistributedLockFactory bean",
                    e);
        }
    }

    /**
     * The provider {@code factory} makes. A backend that does not answer, or refuses, fails the start
     * with the factory's message and the way out; {@code lockkit.startup=lazy} does not reach here at
     * start.
     */
    private static LockProvider create(
            LockProviderFactory factory, ProviderSettings settings, ProviderEnvironment environment) {
        try {
            return factory.create(settings, environment);
        } catch (LockException e) {
            throw new IllegalStateException(
                    e.getMessage() + "; " + settings.name(LockkitConfig.STARTUP) + "=lazy starts without it", e);
        }
    }

    private static Duration setting(LockkitConfig config, String key, Duration fallback) {
        Duration d = config.duration(key).orElse(fallback);
        if (d.isNegative()) {
            throw config.invalid(key, d.toString(), "must not be negative");
        }
        return d;
    }

    /** Whether Micrometer and lock-micrometer are visible to lock-cdi (checked by name, loading neither). */
    private static boolean micrometerPresent() {
        return LockkitConfig.present("io.micrometer.core.instrument.MeterRegistry")
                && LockkitConfig.present("io.lockkit.micrometer.LockMetrics");
    }
}
