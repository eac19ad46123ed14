package io.lockkit.micrometer;

import io.lockkit.LockObserver.LossCause;
import io.lockkit.LockObserver.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
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
    private final EnumMap<LossCause, Counter> lost = new EnumMap<>(LossCause.class);
    /** Every meter above and the active-holds gauge, to remove them at close. */
    final List<Meter> all;

    HoldMeters(MeterRegistry registry, Tags tags, AtomicInteger active) {
        List<Meter> meters = new ArrayList<>();
        acquired = acquireTimer(registry, tags, "acquired");
        reentered = acquireTimer(registry, tags, "reentered");
        meters.add(acquired);
        meters.add(reentered);
        for (Outcome outcome : Outcome.values()) {
            Timer timer = acquireTimer(registry, tags, LockMetrics.tagValue(outcome));
            notAcquired.put(outcome, timer);
            meters.add(timer);
        }
        held = Timer.builder(LockMetrics.HELD)
                .tags(tags)
                .description("How long locks were held, from the winning request to the owner's last release")
                .register(registry);
        meters.add(held);
        for (LossCause cause : LossCause.values()) {
            Counter counter = Counter.builder(LockMetrics.LOST)
                    .tags(tags)
                    .tag(LockMetrics.CAUSE_TAG, LockMetrics.tagValue(cause))
                    .description("Holds lost before their owner released them")
                    .register(registry);
            lost.put(cause, counter);
            meters.add(counter);
        }
        meters.add(Gauge.builder(LockMetrics.HOLDS_ACTIVE, active, AtomicInteger::get)
                .tags(tags)
                .strongReference(true)
                .description("Holds held now")
                .register(registry));
        all = List.copyOf(meters);
    }

    Timer acquire(Outcome outcome) {
        Timer timer = notAcquired.get(outcome);
        if (timer == null) {
            throw new IllegalStateException("no acquire timer for outcome " + outcome); // every outcome has one
        }
        return timer;
    }

    Counter lost(LossCause cause) {
        Counter counter = lost.get(cause);
        if (counter == null) {
            throw new IllegalStateException("no lost counter for cause " + cause); // every cause has one
        }
        return counter;
    }

    private static Timer acquireTimer(MeterRegistry registry, Tags tags, String outcome) {
        return Timer.builder(LockMetrics.ACQUIRE)
                .tags(tags)
                .tag(LockMetrics.OUTCOME_TAG, outcome)
                .description("How long lock acquisitions took, by how they ended")
                .register(registry);
    }
}
