package io.lockkit.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The registry {@link LockMetrics} is bound to and the meters that are per factory, not per series
 * (renewal failures, backend unavailable, the waiters gauge). Immutable, so thread-safe.
 */
final class FactoryMeters {
    final MeterRegistry registry;
    final Counter renewalFailures;
    final Counter backendUnavailable;
    final Gauge waiting;

    FactoryMeters(MeterRegistry registry, Tags tags, AtomicInteger waiters) {
        this.registry = registry;
        this.renewalFailures = Counter.builder(LockMetrics.RENEWAL_FAILURES)
                .tags(tags)
                .description("Watchdog renewal batches that failed (retried until the leases' deadlines)")
                .register(registry);
        this.backendUnavailable = Counter.builder(LockMetrics.BACKEND_UNAVAILABLE)
                .tags(tags)
                .description("Lock calls and renewals that found the backend unreachable or too slow")
                .register(registry);
        this.waiting =
                MeterFamilies.gauge(LockMetrics.WAITERS, waiters, "Threads waiting for a busy lock", registry, tags);
    }

    /** Removes these meters from the registry. */
    void remove() {
        registry.remove(renewalFailures);
        registry.remove(backendUnavailable);
        registry.remove(waiting);
    }
}
