package io.lockkit.cdi.internal;

import io.lockkit.HealthReport;
import io.lockkit.cdi.internal.engine.HealthRules;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * The {@code lockkit} MicroProfile Health readiness check: UP while the lock factory
 * {@code @Locked} uses can lock (its backend answers within {@code lockkit.health.timeout}, its
 * lease watchdog runs on time), with the backend, probe latency, active holds, losses in the last
 * minute and watchdog state as data (see {@link HealthRules}). Thread-safe; never throws.
 *
 * <p>A bean only where the MicroProfile Health API is present: the extensions add it
 * ({@link HealthChecks}), since this class cannot even be loaded without that API.
 */
// Design notes.
// - Stateless: the probe in flight, the loss count and the watchdog live in the factory
//   (DistributedLockFactory.health), so this bean may be @Dependent (Weld) or @Singleton (Quarkus'
//   default for health checks) alike, and an application's own factory bean is checked as well as
//   the library's, through its client proxy.
// - The settings are read on every call (a few MicroProfile Config lookups every few seconds), so
//   a wrong value shows as a DOWN naming the key instead of failing the deployment of an
//   application that never asked for health checks.
@Readiness
public class LockkitReadinessCheck implements HealthCheck {

    /** The check's name in the health report. */
    public static final String NAME = "lockkit";

    // Not LockFactoryHolder itself: Payara places a bean an extension adds in an archive that does
    // not see this jar's beans, and an unsatisfied injection point would fail the deployment.
    @Inject
    Instance<Object> beans;

    @Override
    public HealthCheckResponse call() {
        Map<String, Object> data = new LinkedHashMap<>();
        String down;
        try {
            LockkitConfig config = LockkitConfig.load();
            HealthRules rules = HealthRules.from(config);
            if (!rules.enabled()) {
                data.put("reason", "not checked: " + config.name(LockkitConfig.HEALTH_ENABLED) + "=false");
                return new HealthCheckResponse(NAME, HealthCheckResponse.Status.UP, Optional.of(data));
            }
            HealthReport report =
                    ApplicationRegistry.find(beans).factory().operations().health(rules.timeout());
            data.putAll(rules.data(report));
            down = rules.downReason(report);
        } catch (UnsupportedOperationException e) {
            // An application's own DistributedLockFactory implementation: lockkit cannot look inside.
            data.put("reason", "not checked: " + e.getMessage());
            down = null;
        } catch (RuntimeException e) {
            down = "the lock factory is not available: " + e.getMessage();
            data.put("reason", down);
        }
        return new HealthCheckResponse(
                NAME,
                down == null ? HealthCheckResponse.Status.UP : HealthCheckResponse.Status.DOWN,
                Optional.of(data));
    }
}
