package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.micrometer.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Instance;
import org.jspecify.annotations.Nullable;

/**
 * The only class touching Micrometer and lock-micrometer (optional dependencies): binds the
 * library's own factory to the application's {@code MeterRegistry} bean. Loaded only when
 * LockFactoryHolder has found both on the class path (by name), so an application without them
 * never links a class that names them.
 */
// Design notes.
// - Only the own factory: an application that produces its DistributedLockFactory bean registers
//   its observers itself (LockMetrics on the builder).
// - Metrics must never stop the application: a registry that cannot be resolved (several @Default
//   ones) or fails while the meters are created is logged, and the factory runs without meters.
final class MicrometerMetrics {

    private static final System.Logger LOG = System.getLogger(MicrometerMetrics.class.getName());

    private MicrometerMetrics() {}

    /**
     * Registers lockkit's meters on {@code factory} when the application has one {@code @Default}
     * MeterRegistry bean; returns what removes them from the registry once the factory is closed
     * (a server-wide registry outlives the application), or null when none were made.
     */
    static @Nullable Runnable bind(Instance<Object> beans, DistributedLockFactory.Builder factory) {
        Instance<MeterRegistry> registries = beans.select(MeterRegistry.class);
        if (registries.isAmbiguous()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: several @Default MeterRegistry beans; no lock metrics"
                            + " (produce the DistributedLockFactory with LockMetrics bound to the registry of your choice)");
            return null;
        }
        if (!registries.isResolvable()) {
            LOG.log(System.Logger.Level.DEBUG, "lockkit: no MeterRegistry bean; no lock metrics");
            return null;
        }
        try {
            MeterRegistry registry = registries.get();
            LockMetrics metrics = LockMetrics.create();
            metrics.bindTo(registry);
            factory.observer(metrics);
            LOG.log(System.Logger.Level.DEBUG, "lockkit: lock metrics in {0}", registry);
            return metrics::close; // made now: a server may refuse to define classes while it undeploys
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: binding lock metrics to the application's MeterRegistry"
                            + " failed; locking goes on without them",
                    e);
            return null;
        }
    }
}
