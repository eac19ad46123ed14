package io.lockkit.spring.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.micrometer.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;

/**
 * The only class touching Micrometer and lock-micrometer (optional dependencies): binds the library's
 * own factory to the application's {@code MeterRegistry} bean. Loaded only once the engine has found
 * both on the class path; metrics never stop the application.
 */
final class SpringMetrics {

    private static final System.Logger LOG = System.getLogger(SpringMetrics.class.getName());

    private SpringMetrics() {}

    /** Binds lockkit's meters when the context has one (or a primary) MeterRegistry; returns what removes them, or null. */
    static @Nullable Runnable bind(BeanFactory beans, DistributedLockFactory.Builder factory) {
        MeterRegistry registry;
        try {
            registry = beans.getBeanProvider(MeterRegistry.class).getIfAvailable();
        } catch (NoUniqueBeanDefinitionException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: several MeterRegistry beans and none primary; no lock metrics");
            return null;
        }
        if (registry == null) {
            return null;
        }
        try {
            LockMetrics metrics = LockMetrics.create();
            metrics.bindTo(registry);
            factory.observer(metrics);
            return metrics::close;
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: binding lock metrics failed; locking goes on without them",
                    e);
            return null;
        }
    }
}
