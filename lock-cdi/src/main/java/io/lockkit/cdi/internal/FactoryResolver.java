package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockOptions;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.cdi.internal.engine.RedisProviders;
import io.lockkit.spi.LockProvider;
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
 * application's {@link LockProvider} bean or over the provider its configuration names.
 */
// Design notes.
// - The application's factory and provider beans come first: a @Default one replaces the library's
//   configuration, and two of them are an error naming both.
// - Metrics: with lock-micrometer on the class path and a MeterRegistry bean, the built factory
//   reports to it (MicrometerMetrics, loaded only then).
final class FactoryResolver {

    /** How long undeploy waits for running {@code @Locked} methods unless {@code lockkit.drain-timeout} says otherwise. */
    static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

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

    /** Whether the built factory will lock in the application's DataSource bean (lockkit.provider=jdbc without URL or JNDI name). */
    boolean onApplicationsDataSource(LockkitConfig config) {
        return !providers.isResolvable()
                && "jdbc".equalsIgnoreCase(config.string(LockkitConfig.PROVIDER).orElse(""))
                && config.string(LockkitConfig.JDBC_URL).isEmpty()
                && config.string(LockkitConfig.JDBC_DATASOURCE).isEmpty();
    }

    /**
     * Builds the library's factory from {@code config}, with threads from {@code container} (the
     * container's managed thread factory) when there is one; a configuration mistake's message ends
     * with the typo hints of the keys the configuration has.
     */
    OwnedFactory build(LockkitConfig config, @Nullable ThreadFactory container) {
        try {
            return buildUnhinted(config, container);
        } catch (IllegalArgumentException e) {
            String hints = config.typoHints();
            throw hints.isEmpty() ? e : new IllegalArgumentException(e.getMessage() + hints, e);
        } catch (IllegalStateException e) {
            String hints = config.typoHints();
            throw hints.isEmpty() ? e : new IllegalStateException(e.getMessage() + hints, e);
        }
    }

    private OwnedFactory buildUnhinted(LockkitConfig config, @Nullable ThreadFactory container) {
        if (providers.isAmbiguous()) {
            throw new IllegalStateException("lockkit: several LockProvider beans with the @Default qualifier: "
                    + describe(providers) + "; keep one");
        }
        Duration drainTimeout = setting(config, LockkitConfig.DRAIN_TIMEOUT, DEFAULT_DRAIN_TIMEOUT);
        LockProvider provider;
        String backend;
        if (providers.isResolvable()) {
            // Closed with the factory, which owns its provider; a @Dependent one is destroyed with the holder.
            provider = providers.get();
            backend = "the application's LockProvider " + provider;
        } else {
            provider = configuredProvider(config, container);
            backend = backend(config);
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
        return new OwnedFactory(factory, provider, config, backend, drainTimeout, unbindMetrics);
    }

    /** The provider {@code lockkit.provider} names, built from its settings. */
    private LockProvider configuredProvider(LockkitConfig config, @Nullable ThreadFactory container) {
        String kind = config.string(LockkitConfig.PROVIDER).orElse("redis").toLowerCase(Locale.ROOT);
        return switch (kind) {
            case "redis" -> {
                requireJedis();
                yield RedisProviders.create(
                        config, container == null ? null : ManagedThreads.named(container, "lockkit-redis"));
            }
            case "jdbc" -> {
                requireJdbc();
                yield JdbcProviders.create(
                        config, beans, container == null ? null : ManagedThreads.named(container, "lockkit-jdbc"));
            }
            case "local" -> new LocalLockProvider();
            default -> throw config.invalid(LockkitConfig.PROVIDER, kind, "expected redis, jdbc or local");
        };
    }

    /** The settings that name the configured backend, for start-up failures. */
    private static String backend(LockkitConfig config) {
        String kind = config.string(LockkitConfig.PROVIDER).orElse("redis").toLowerCase(Locale.ROOT);
        return switch (kind) {
            case "jdbc" -> JdbcProviders.describe(config);
            case "local" -> "the in-JVM provider";
            default -> RedisProviders.describe(config);
        };
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

    private static void requireJdbc() {
        try {
            Class.forName("io.lockkit.jdbc.JdbcLockProvider", false, FactoryResolver.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    LockkitConfig.PROVIDER + "=jdbc needs io.lockkit:lock-jdbc on the class path"
                            + " (and the database's JDBC driver); add it, or produce a LockProvider or DistributedLockFactory bean",
                    e);
        }
    }

    private static void requireJedis() {
        try {
            Class.forName("io.lockkit.jedis.JedisLockProvider", false, FactoryResolver.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    LockkitConfig.PROVIDER + "=redis (the default) needs io.lockkit:lock-jedis"
                            + " on the class path; add it, set " + LockkitConfig.PROVIDER
                            + "=local for a single process,"
                            + " or produce a LockProvider or DistributedLockFactory bean",
                    e);
        }
    }
}
