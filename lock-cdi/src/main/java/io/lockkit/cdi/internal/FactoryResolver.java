package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockException;
import io.lockkit.LockOptions;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ProviderFactories;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the factory an application's {@code @Locked} methods use: its own
 * {@link DistributedLockFactory} bean if it has one, else one the library builds over the
 * application's {@link LockProvider} bean or over the provider {@code lockkit.provider} names: a
 * {@link LockProviderFactory} found by {@link java.util.ServiceLoader} (lock-jedis' {@code redis},
 * lock-jdbc's {@code jdbc}, a third party's), or lock-api's in-JVM one for {@code local}.
 */
// Design notes.
// - The application's factory and provider beans come first: a @Default one replaces the library's
//   configuration, and two of them are an error naming both.
// - No provider-specific code: the provider's factory reads its own lockkit.<name>.* keys
//   (ProviderSettings over this configuration) and gets what the container has through
//   CdiProviderEnvironment; its messages name its keys and their source.
// - Metrics: with lock-micrometer on the class path and a MeterRegistry bean, the built factory
//   reports to it (MicrometerMetrics, loaded only then), unless lockkit.metrics.enabled=false.
final class FactoryResolver {

    /** How long undeploy waits for running {@code @Locked} methods unless {@code lockkit.drain-timeout} says otherwise. */
    static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

    /** The provider when {@code lockkit.provider} is not set. */
    static final String DEFAULT_PROVIDER = "redis";

    /** lock-api's in-JVM provider, for a single process. */
    static final String LOCAL = "local";

    private static final System.Logger LOG = System.getLogger(FactoryResolver.class.getName());

    private final Instance<DistributedLockFactory> factories;
    private final Instance<LockProvider> providers;
    private final Instance<Object> beans;

    FactoryResolver(
            Instance<DistributedLockFactory> factories, Instance<LockProvider> providers, Instance<Object> beans) {
        this.factories = factories;
        this.providers = providers;
        this.beans = beans;
    }

    /**
     * The application's {@code @Default} factory bean (which may be the library's own factory bean,
     * resolving back to the holder), or null when there is none.
     */
    @Nullable
    DistributedLockFactory applicationFactory() {
        if (factories.isAmbiguous()) {
            throw new IllegalStateException("lockkit: several DistributedLockFactory beans qualify for @Locked: "
                    + describe(factories) + "; keep one with the @Default qualifier");
        }
        return factories.isResolvable() ? factories.get() : null;
    }

    /**
     * Logs a warning for each {@code lockkit.*} key nobody reads, with the key probably meant, both
     * named as the application spells them; not for a key the runtime warns about itself (Quarkus,
     * for a mistyped {@code quarkus.lockkit.*} key), so that each is reported once.
     */
    void reportUnknownKeys(LockkitConfig config) {
        config.unknownKeys().forEach((key, meant) -> {
            if (!config.warnedByRuntime(key)) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "lockkit: unknown configuration key {0} is ignored; did you mean {1}?",
                        config.name(key),
                        config.name(meant));
            }
        });
    }

    /**
     * Builds the library's factory from {@code config}, with threads from {@code container} (the
     * container's managed thread factory) when there is one; a configuration mistake's message ends
     * with the typo hints of the keys the configuration has.
     *
     * @param starting whether the application is still starting: a provider that needs one of its
     *     beans then throws {@link CdiProviderEnvironment.NeedsStartedApplication}
     * @param check whether to ask the backend its start-up question ({@link OwnedFactory#check})
     *     before the factory is built: a backend that does not answer then fails the start before the
     *     factory logs that it started
     */
    OwnedFactory build(LockkitConfig config, @Nullable ThreadFactory container, boolean starting, boolean check) {
        try {
            return buildUnhinted(config, container, starting, check);
        } catch (IllegalArgumentException e) {
            String hints = config.typoHints();
            throw hinted(e, hints) ? e : new IllegalArgumentException(e.getMessage() + hints, e);
        } catch (IllegalStateException e) {
            String hints = config.typoHints();
            throw hinted(e, hints) ? e : new IllegalStateException(e.getMessage() + hints, e);
        }
    }

    /** Whether {@code e}'s message needs no {@code hints}: there are none, or it has them (the start-up check's). */
    private static boolean hinted(RuntimeException e, String hints) {
        return hints.isEmpty() || String.valueOf(e.getMessage()).endsWith(hints);
    }

    private OwnedFactory buildUnhinted(
            LockkitConfig config, @Nullable ThreadFactory container, boolean starting, boolean check) {
        Duration drainTimeout = setting(config, LockkitConfig.DRAIN_TIMEOUT, DEFAULT_DRAIN_TIMEOUT);
        Chosen chosen = provider(config, container, starting);
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
        if (container != null) {
            b.threadFactory(ManagedThreads.named(container, "lockkit-scheduler"));
        }
        boolean metrics = micrometerPresent()
                && config.bool(LockkitConfig.METRICS_ENABLED).orElse(Boolean.TRUE);
        Runnable unbindMetrics = metrics ? MicrometerMetrics.bind(beans, b) : null;
        DistributedLockFactory factory;
        try {
            factory = b.build();
        } catch (RuntimeException | Error e) {
            if (unbindMetrics != null) {
                OwnedFactory.removeMeters(unbindMetrics);
            }
            throw e;
        }
        // DEBUG: the factory's own INFO line ("started as client … over …") already says this.
        LOG.log(
                System.Logger.Level.DEBUG,
                "lockkit: DistributedLockFactory over {0}{1}",
                provider,
                container != null ? " with the container's ManagedThreadFactory" : "");
        return owned.open(factory, unbindMetrics);
    }

    /** The provider the factory is built over, what it is for messages, and the keys its factory reads. */
    private record Chosen(LockProvider provider, String backend, List<String> keys) {}

    private Chosen provider(LockkitConfig config, @Nullable ThreadFactory container, boolean starting) {
        if (providers.isAmbiguous()) {
            throw new IllegalStateException("lockkit: several LockProvider beans with the @Default qualifier: "
                    + describe(providers) + "; keep one");
        }
        if (providers.isResolvable()) {
            // Closed with the factory, which owns its provider; a @Dependent one is destroyed with the holder.
            LockProvider provider = providers.get();
            return new Chosen(provider, "the application's LockProvider " + provider, List.of());
        }
        if (LOCAL.equals(providerName(config))) {
            return new Chosen(new LocalLockProvider(), "the in-JVM provider", List.of());
        }
        LockProviderFactory factory = providerFactory(config);
        ProviderSettings settings = config.providerSettings();
        LockProvider provider = create(
                factory, settings, new CdiProviderEnvironment(beans, container, "lockkit-" + factory.name(), starting));
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
            LockProviderFactory factory, ProviderSettings settings, CdiProviderEnvironment environment) {
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

    private static String describe(Instance<?> candidates) {
        List<String> beans = new ArrayList<>();
        for (Instance.Handle<?> handle : candidates.handles()) {
            beans.add(handle.getBean().toString());
        }
        return String.join(", ", beans);
    }

    /** Whether Micrometer and lock-micrometer are visible to lock-cdi (checked by name, loading neither). */
    private static boolean micrometerPresent() {
        ClassLoader loader = FactoryResolver.class.getClassLoader();
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry", false, loader);
            Class.forName("io.lockkit.micrometer.LockMetrics", false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
