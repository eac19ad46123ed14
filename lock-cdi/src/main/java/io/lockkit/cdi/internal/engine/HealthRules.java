package io.lockkit.cdi.internal.engine;

import io.lockkit.HealthReport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The readiness rules of the {@code lockkit} health check, without the health API: whether it
 * checks at all ({@code lockkit.health.enabled}), how long the probe may take
 * ({@code lockkit.health.timeout}), when losses make the check DOWN
 * ({@code lockkit.health.max-losses-per-minute}), and the data the check reports. Immutable.
 */
// Design notes.
// - DOWN is the core's verdict (HealthReport.isUp: the probe failed or timed out, the watchdog is
//   late or stopped) plus, only when the operator asks for it, more losses in the last minute than
//   lockkit.health.max-losses-per-minute. By default losses are data: readiness DOWN takes the
//   instance out of the load balancer, which does not bring a lost lock back, and the outages
//   that lose many holds at once already fail the probe.
// - lockkit.health.enabled=false keeps the check UP without probing, for applications that serve
//   without their locks and use MicroProfile Health for other checks: a shared Redis that stops
//   would otherwise take every instance out of service at once.
// - The default timeout (500 ms) is below Kubernetes' default probe timeout (1 s), so the check
//   answers DOWN before the kubelet gives up on the HTTP call.
public final class HealthRules {

    /** How long the probe may take unless {@code lockkit.health.timeout} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(500);

    private final boolean enabled;
    private final Duration timeout;
    private final @Nullable Integer maxLosses;
    /** {@link LockkitConfig#HEALTH_MAX_LOSSES} as the application spells it, for the DOWN reason. */
    private final String maxLossesKey;

    HealthRules(boolean enabled, Duration timeout, @Nullable Integer maxLosses) {
        this(enabled, timeout, maxLosses, LockkitConfig.HEALTH_MAX_LOSSES);
    }

    private HealthRules(boolean enabled, Duration timeout, @Nullable Integer maxLosses, String maxLossesKey) {
        this.enabled = enabled;
        this.timeout = timeout;
        this.maxLosses = maxLosses;
        this.maxLossesKey = maxLossesKey;
    }

    /**
     * The rules {@code config} sets.
     *
     * @throws IllegalArgumentException naming the key, for a value that is not a boolean, a
     *         timeout that is not positive, or a negative number of losses
     */
    public static HealthRules from(LockkitConfig config) {
        boolean enabled = config.bool(LockkitConfig.HEALTH_ENABLED).orElse(Boolean.TRUE);
        Duration timeout = config.duration(LockkitConfig.HEALTH_TIMEOUT).orElse(DEFAULT_TIMEOUT);
        if (timeout.isZero() || timeout.isNegative()) {
            throw config.invalid(LockkitConfig.HEALTH_TIMEOUT, timeout.toString(), "must be positive");
        }
        Integer maxLosses = config.integer(LockkitConfig.HEALTH_MAX_LOSSES).orElse(null);
        if (maxLosses != null && maxLosses < 0) {
            throw config.invalid(LockkitConfig.HEALTH_MAX_LOSSES, maxLosses.toString(), "must be zero or more");
        }
        return new HealthRules(enabled, timeout, maxLosses, config.name(LockkitConfig.HEALTH_MAX_LOSSES));
    }

    /** Whether the check probes at all; when not, it is UP without a probe. */
    public boolean enabled() {
        return enabled;
    }

    /** How long the probe may take. */
    public Duration timeout() {
        return timeout;
    }

    /** Why the check is DOWN, or null when it is UP. */
    public @Nullable String downReason(HealthReport report) {
        if (!report.isUp()) {
            return report.failure().orElse("the lock factory is down");
        }
        if (maxLosses != null && report.lossesInLastMinute() > maxLosses) {
            return report.lossesInLastMinute() + " holds lost in the last minute, more than " + maxLossesKey + " = "
                    + maxLosses;
        }
        return null;
    }

    /**
     * The check's data: {@code backend}, {@code probeLatencyMicros} (when the backend answered),
     * {@code activeHolds}, {@code lossesLastMinute}, {@code watchdog}, and {@code reason} when DOWN.
     */
    public Map<String, Object> data(HealthReport report) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("backend", report.backend());
        report.probeLatency().ifPresent(latency -> data.put("probeLatencyMicros", latency.toNanos() / 1_000));
        data.put("activeHolds", (long) report.activeHolds());
        data.put("lossesLastMinute", (long) report.lossesInLastMinute());
        data.put("watchdog", report.watchdog().name());
        String reason = downReason(report);
        if (reason != null) {
            data.put("reason", reason);
        }
        return data;
    }
}
