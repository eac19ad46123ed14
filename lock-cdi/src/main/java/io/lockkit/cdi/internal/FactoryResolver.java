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
//   reports to it (MicrometerMetrics, loaded only then).
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

    /** Logs a warning for each {@code lockkit.*} key nobody reads, with the key probably meant. */
    void reportUnknownKeys(LockkitConfig config) {
        config.unknownKeys()
                .forEach((key, meant) -> LOG.log(
                        System.Logger.Level.WARNING,
                        "lockkit: unknown configuration key {0} is ignored; did you mean {1}?",
                        key,
                        meant));
    }

    /**
     * Builds the library's factory from {@code config}, with threads from {@code container} (the
     * container's managed thread factory) when there is one; a configuration mistake's message ends
     * with the typo hints of the keys the configuration has.
     *
     * @param starting whether the application is still starting: a provider that needs one of its
     *     beans then throws {@link CdiProviderEnvironment.NeedsStartedApplication}
     */
    OwnedFactory build(LockkitConfig config, @Nullable ThreadFactory container, boolean starting) {
        try {
            return buildUnhinted(config, container, starting);
        } catch (IllegalArgumentException e) {
            String hints = config.typoHints();
            throw hints.isEmpty() ? e : new IllegalArgumentException(e.getMessage() + hints, e);
        } catch (IllegalStateException e) {
            String hints = config.typoHints();
            throw hints.isEmpty() ? e : new IllegalStateException(e.getMessage() + hints, e);
        }
    }

    private OwnedFactory buildUnhinted(LockkitConfig config, @Nullable ThreadFactory container, boolean starting) {
        if (providers.isAmbiguous()) {
            throw new IllegalStateException("lockkit: several LockProvider beans with the @Default qualifier: "
                    + describe(providers) + "; keep one");
        }
        Duration drainTimeout = setting(config, LockkitConfig.DRAIN_TIMEOUT, DEFAULT_DRAIN_TIMEOUT);
        LockProvider provider;
        String backend;
        List<String> providerKeys = List.of();
        if (providers.isResolvable()) {
            // Closed with the factory, which owns its provider; a @Dependent one is destroyed with the holder.
            provider = providers.get();
            backend = "the application's LockProvider " + provider;
        } else if (LOCAL.equals(providerName(config))) {
            provider = new LocalLockProvider();
            backend = "the in-JVM provider";
        } else {
            LockProviderFactory factory = providerFactory(config);
            ProviderSettings settings = config.providerSettings();
            provider = create(
                    factory,
                    settings,
                    new CdiProviderEnvironment(beans, container, "lockkit-" + factory.name(), starting));
            backend = factory.describeTarget(settings);
            providerKeys = factory.settings().stream().map(ProviderSetting::key).toList();
        }
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(provider);
        try {
            config.duration(LockkitConfig.WATCHDOG_LEASE)
                    .ifPresent(lease -> b.defaultOptions(
                            LockOptions.builder().watchdogLease(lease).build()));
        } catch (IllegalArgumentException e) {
            provider.close();
            throw new IllegalArgumentException(
                    LockkitConfig.WATCHDOG_LEASE + " (from " + config.origin() + "): " + e.getMessage(), e);
        }
        config.string(LockkitConfig.CLIENT_ID).ifPresent(id -> {
            try {
                b.clientId(id);
            } catch (IllegalArgumentException e) {
                provider.close();
                throw config.invalid(LockkitConfig.CLIENT_ID, id, String.valueOf(e.getMessage()));
            }
        });
        if (container != null) {
            b.threadFactory(ManagedThreads.named(container, "lockkit-scheduler"));
        }
        Runnable unbindMetrics = micrometerPresent() ? MicrometerMetrics.bind(beans, b) : null;
        DistributedLockFactory factory;
        try {
            factory = b.build();
        } catch (RuntimeException | Error e) {
            if (unbindMetrics != null) {
                OwnedFactory.removeMeters(unbindMetrics);
            }
            throw e;
        }
        LOG.log(
                System.Logger.Level.INFO,
                "lockkit: DistributedLockFactory over {0}{1}",
                provider,
                container != null ? " with the container's ManagedThreadFactory" : "");
        return new OwnedFactory(factory, provider, config, backend, providerKeys, drainTimeout, unbindMetrics);
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
            return LockProviderFactory.named(name, LockkitConfig.applicationLoader());
        } catch (IllegalArgumentException e) {
            String why = String.valueOf(e.getMessage()).replaceFirst("^lockkit: ", "");
            throw new IllegalStateException(
                    "lockkit: " + config.describe(LockkitConfig.PROVIDER, DEFAULT_PROVIDER) + ": " + why + "; or set "
                            + LockkitConfig.PROVIDER + "=" + LOCAL + " for a single process, or produce a LockProvider"
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
                    e.getMessage() + "; " + LockkitConfig.STARTUP + "=lazy starts without it", e);
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
