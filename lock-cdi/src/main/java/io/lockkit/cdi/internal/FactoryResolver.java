package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.cdi.internal.engine.FactoryBuild;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.cdi.internal.engine.OwnedFactory;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.ProviderEnvironment;
import jakarta.enterprise.inject.Instance;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the factory an application's {@code @Locked} methods use: its own
 * {@link DistributedLockFactory} bean if it has one, else one the library builds over the
 * application's {@link LockProvider} bean or over the provider {@code lockkit.provider} names: a
 * {@link io.lockkit.spi.LockProviderFactory} found by {@link java.util.ServiceLoader} (lock-jedis' {@code redis},
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
        FactoryBuild.reportUnknownKeys(config, LOG);
    }

    /**
     * Builds the library's factory from {@code config} ({@link FactoryBuild}), with threads from
     * {@code container} (the container's managed thread factory) when there is one.
     *
     * @param starting whether the application is still starting: a provider that needs one of its
     *     beans then throws {@link CdiProviderEnvironment.NeedsStartedApplication}
     * @param check whether to ask the backend its start-up question ({@link OwnedFactory#check})
     *     before the factory is built
     */
    OwnedFactory build(LockkitConfig config, @Nullable ThreadFactory container, boolean starting, boolean check) {
        OwnedFactory owned = FactoryBuild.build(
                config,
                new FactoryBuild.Inputs() {
                    @Override
                    public @Nullable LockProvider applicationProvider() {
                        if (providers.isAmbiguous()) {
                            throw new IllegalStateException(
                                    "lockkit: several LockProvider beans with the @Default qualifier: "
                                            + describe(providers) + "; keep one");
                        }
                        // Closed with the factory, which owns its provider; a @Dependent one is destroyed with the
                        // holder.
                        return providers.isResolvable() ? providers.get() : null;
                    }

                    @Override
                    public ProviderEnvironment environment(String threadPrefix) {
                        return new CdiProviderEnvironment(beans, container, threadPrefix, starting);
                    }

                    @Override
                    public void threads(DistributedLockFactory.Builder builder) {
                        if (container != null) {
                            builder.threadFactory(ManagedThreads.named(container, "lockkit-scheduler"));
                        }
                    }

                    @Override
                    public @Nullable Runnable bindMetrics(DistributedLockFactory.Builder builder) {
                        return MicrometerMetrics.bind(beans, builder);
                    }
                },
                check);
        // DEBUG: the factory's own INFO line ("started as client … over …") already says this.
        LOG.log(
                System.Logger.Level.DEBUG,
                "lockkit: DistributedLockFactory{0}",
                container != null ? " with the container's ManagedThreadFactory" : "");
        return owned;
    }

    private static String describe(Instance<?> candidates) {
        List<String> beans = new ArrayList<>();
        for (Instance.Handle<?> handle : candidates.handles()) {
            beans.add(handle.getBean().toString());
        }
        return String.join(", ", beans);
    }
}
