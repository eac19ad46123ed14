package io.lockkit.cdi;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Qualifier;
import jakarta.inject.Singleton;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.time.Duration;

/** Application beans that replace the library's factory or its backend. */
final class Replacements {

    /** The watchdog lease that marks the application's own factory. */
    static final Duration MARK = Duration.ofSeconds(7);

    static volatile LocalLockProvider backend;

    private Replacements() {}

    /** A plain producer: no @Alternative, no priority. */
    @ApplicationScoped
    public static class FactoryProducer {
        @Produces
        @ApplicationScoped
        DistributedLockFactory locks() {
            backend = new LocalLockProvider();
            return DistributedLockFactory.builder(backend)
                    .defaultOptions(LockOptions.builder().watchdogLease(MARK).build())
                    .build();
        }

        void close(@Disposes DistributedLockFactory locks) {
            locks.close();
        }
    }

    /** Only the backend: the library builds its factory over it. */
    @ApplicationScoped
    public static class ProviderProducer {
        @Produces
        @Singleton
        LockProvider provider() {
            backend = new LocalLockProvider();
            return backend;
        }
    }

    @Qualifier
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Reporting {}

    /** A second, qualified factory next to the library's. */
    @ApplicationScoped
    public static class QualifiedFactoryProducer {
        @Produces
        @Reporting
        @ApplicationScoped
        DistributedLockFactory reportingLocks() {
            return DistributedLockFactory.builder(new LocalLockProvider())
                    .defaultOptions(LockOptions.builder().watchdogLease(MARK).build())
                    .build();
        }

        void close(@Disposes @Reporting DistributedLockFactory locks) {
            locks.close();
        }
    }
}
