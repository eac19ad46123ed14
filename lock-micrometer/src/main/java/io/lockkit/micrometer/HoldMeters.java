package io.lockkit.micrometer;

import static io.lockkit.micrometer.MeterFamilies.counters;
import static io.lockkit.micrometer.MeterFamilies.gauge;
import static io.lockkit.micrometer.MeterFamilies.meterFor;
import static io.lockkit.micrometer.MeterFamilies.tagValue;

import io.lockkit.LockObserver.LossCause;
import io.lockkit.LockObserver.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One series' lock meters (acquisitions by outcome, holds, losses by cause, the active-holds gauge),
 * registered together once. Immutable after construction, so thread-safe.
 */
final class HoldMeters {
    final Timer acquired;
    final Timer reentered;
    final Timer held;
    private final EnumMap<Outcome, Timer> notAcquired = new EnumMap<>(Outcome.class);
    private final EnumMap<LossCause, Counter> lost;
    /** Every meter above and the active-holds gauge, to remove them at close. */
    final List<Meter> all;

    HoldMeters(MeterRegistry registry, Tags tags, AtomicInteger active) {
        List<Meter> meters = new ArrayList<>();
        acquired = acquireTimer(registry, tags, "acquired");
        reentered = acquireTimer(registry, tags, "reentered");
        meters.add(acquired);
        meters.add(reentered);
        for (Outcome outcome : Outcome.values()) {
            Timer timer = acquireTimer(registry, tags, tagValue(outcome));
            notAcquired.put(outcome, timer);
            meters.add(timer);
        }
        held = Timer.builder(LockMetrics.HELD)
                .tags(tags)
                .description("How long locks were held, from the winning request to the owner's last release")
                .register(registry);
        meters.add(held);
        lost = counters(
                LossCause.class,
                LockMetrics.LOST,
                LockMetrics.CAUSE_TAG,
                "Holds lost before their owner released them",
                registry,
                tags,
                meters);
        meters.add(gauge(LockMetrics.HOLDS_ACTIVE, active, "Holds held now", registry, tags));
        all = List.copyOf(meters);
    }

    Timer acquire(Outcome outcome) {
        return meterFor(notAcquired, outcome);
    }

    Counter lost(LossCause cause) {
        return meterFor(lost, cause);
    }

    private static Timer acquireTimer(MeterRegistry registry, Tags tags, String outcome) {
        return Timer.builder(LockMetrics.ACQUIRE)
                .tags(tags)
                .tag(LockMetrics.OUTCOME_TAG, outcome)
                .description("How long lock acquisitions took, by how they ended")
                .register(registry);
    }
}
