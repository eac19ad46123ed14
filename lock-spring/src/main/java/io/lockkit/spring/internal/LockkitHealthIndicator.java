package io.lockkit.spring.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.HealthReport;
import io.lockkit.cdi.internal.engine.HealthRules;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Actuator's {@code lockkit} health: UP while the factory {@code @Locked} uses can lock (its backend
 * answers within {@code lockkit.health.timeout}, its lease watchdog runs on time), with the
 * backend, probe latency, active holds, losses in the last minute and the watchdog's state as
 * details: the readiness rules of lockkit's CDI and Quarkus check ({@link HealthRules}). Add it to
 * the readiness group ({@code management.endpoint.health.group.readiness.include=readinessState,lockkit})
 * to take an instance out of service while its lock backend is down. Thread-safe; never throws.
 */
public final class LockkitHealthIndicator implements HealthIndicator {

    private final LockkitConfig config;
    private final Supplier<DistributedLockFactory> factory;

    /** The health of the factory {@code factory} gives, by the rules {@code config} sets. */
    public LockkitHealthIndicator(LockkitConfig config, Supplier<DistributedLockFactory> factory) {
        this.config = config;
        this.factory = factory;
    }

    @Override
    public Health health() {
        try {
            HealthRules rules = HealthRules.from(config);
            if (!rules.enabled()) {
                return Health.up()
                        .withDetail("reason", "not checked: " + config.name(LockkitConfig.HEALTH_ENABLED) + "=false")
                        .build();
            }
            HealthReport report = factory.get().operations().health(rules.timeout());
            String down = rules.downReason(report);
            return (down == null ? Health.up() : Health.down())
                    .withDetails(rules.data(report))
                    .build();
        } catch (UnsupportedOperationException e) {
            // An application's own DistributedLockFactory implementation: lockkit cannot look inside.
            return Health.up()
                    .withDetail("reason", "not checked: " + e.getMessage())
                    .build();
        } catch (RuntimeException e) {
            return Health.down()
                    .withDetail("reason", "the lock factory is not available: " + e.getMessage())
                    .build();
        }
    }
}
