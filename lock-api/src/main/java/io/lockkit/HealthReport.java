package io.lockkit;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What {@link LockOperations#health(Duration)} found: whether the backend answered a probe
 * within its timeout, the state of the lease watchdog, and recent losses. Immutable and
 * thread-safe.
 *
 * <p>{@link #isUp()} is the factory's own verdict, for a readiness check: <b>down</b> when the
 * backend did not answer (an error, or no answer within the timeout), when the watchdog is
 * {@link WatchdogStatus#STOPPED STOPPED} (the factory is closed, or its scheduler was shut down) or
 * {@link WatchdogStatus#LATE LATE}; <b>up</b> otherwise. Losses are reported as data only: one
 * lost hold says little about whether this instance can serve, and the backend failures that
 * cause many losses already show as a failed probe. A caller that wants more (e.g. down above a
 * number of losses a minute) decides on {@link #lossesInLastMinute()} itself.
 */
public final class HealthReport {

    /** The lease watchdog's state. */
    public enum WatchdogStatus {
        /** No hold to renew or watch: nothing is scheduled, which is healthy. */
        IDLE,
        /** Holds are watched and the watchdog runs on time. */
        RUNNING,
        /**
         * The watchdog's next run is overdue by more than a renewal interval (of the factory's
         * default options, at least a second), or a run has taken that long: renewals are late
         * and holds may lapse (a saturated or blocked scheduler, a loss listener that blocks).
         */
        LATE,
        /** The factory is closed, or the scheduler it renews on was shut down. */
        STOPPED
    }

    private final String backend;
    private final @Nullable Duration probeLatency;
    private final @Nullable String failure;
    private final int activeHolds;
    private final WatchdogStatus watchdog;
    private final int lossesInLastMinute;
    private final Map<String, Boolean> leaderships;

    HealthReport(
            String backend,
            @Nullable Duration probeLatency,
            @Nullable String failure,
            int activeHolds,
            WatchdogStatus watchdog,
            int lossesInLastMinute,
            Map<String, Boolean> leaderships) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.probeLatency = probeLatency;
        this.failure = failure;
        this.activeHolds = activeHolds;
        this.watchdog = Objects.requireNonNull(watchdog, "watchdog");
        this.lossesInLastMinute = lossesInLastMinute;
        this.leaderships = Map.copyOf(leaderships);
    }

    /** Whether the factory can lock: the backend answered the probe and the watchdog is neither stopped nor late. */
    public boolean isUp() {
        return probeLatency != null && watchdog != WatchdogStatus.STOPPED && watchdog != WatchdogStatus.LATE;
    }

    /** The backend, as its provider describes itself (its {@code toString()}, e.g. the Redis URI without password). */
    public String backend() {
        return backend;
    }

    /** How long the backend took to answer the probe, or empty when it failed or did not answer in time. */
    public Optional<Duration> probeLatency() {
        return Optional.ofNullable(probeLatency);
    }

    /** Why the report is down (the first reason found), or empty when it is up. */
    public Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /**
     * Holds this factory has now, of every primitive: each owner's hold of a name once, whatever its
     * hold count (a read lock's hold, a semaphore's hold of several permits: one each).
     */
    public int activeHolds() {
        return activeHolds;
    }

    /** The lease watchdog's state. */
    public WatchdogStatus watchdog() {
        return watchdog;
    }

    /**
     * Holds of this factory lost in the last 60 seconds (lease ran out, found gone by the backend,
     * force-released; not the ones released by closing the factory), counted to the second.
     */
    public int lossesInLastMinute() {
        return lossesInLastMinute;
    }

    /**
     * The {@link Leadership}s of this factory that are open (made and not closed), by name, each
     * with whether this instance leads it now; data only, no part of {@link #isUp()}.
     */
    public Map<String, Boolean> leaderships() {
        return leaderships;
    }

    @Override
    public String toString() {
        return (isUp() ? "UP" : "DOWN") + " backend=" + backend
                + (probeLatency != null ? " probeLatency=" + probeLatency.toNanos() / 1_000 + "us" : "")
                + (failure != null ? " failure=" + failure : "")
                + " activeHolds=" + activeHolds + " watchdog=" + watchdog + " lossesInLastMinute=" + lossesInLastMinute
                + (leaderships.isEmpty() ? "" : " leaderships=" + new java.util.TreeMap<>(leaderships));
    }
}
