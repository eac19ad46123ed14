package io.lockkit.micrometer;

import io.lockkit.Leadership.RevocationReason;
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
 * One series' leadership meters (terms won, terms ended by reason, term length, the leading gauge),
 * registered together once. Immutable after construction, so thread-safe.
 */
final class LeadershipMeters {
    final Counter elected;
    final Timer led;
    private final EnumMap<RevocationReason, Counter> revoked = new EnumMap<>(RevocationReason.class);
    /** Every meter above and the leading gauge, to remove them at close. */
    final List<Meter> all;

    LeadershipMeters(MeterRegistry registry, Tags tags, AtomicInteger leading) {
        List<Meter> meters = new ArrayList<>();
        elected = Counter.builder(LockMetrics.LEADERSHIP_ELECTED)
                .tags(tags)
                .description("Leadership terms won by this instance")
                .register(registry);
        led = Timer.builder(LockMetrics.LEADERSHIP_LED)
                .tags(tags)
                .description("How long leadership terms lasted, from the winning request to the revocation")
                .register(registry);
        meters.add(elected);
        meters.add(led);
        for (RevocationReason reason : RevocationReason.values()) {
            Counter counter = Counter.builder(LockMetrics.LEADERSHIP_REVOKED)
                    .tags(tags)
                    .tag(LockMetrics.REASON_TAG, LockMetrics.tagValue(reason))
                    .description("Leadership terms that ended, by reason")
                    .register(registry);
            revoked.put(reason, counter);
            meters.add(counter);
        }
        meters.add(Gauge.builder(LockMetrics.LEADERSHIP_LEADING, leading, AtomicInteger::get)
                .tags(tags)
                .strongReference(true)
                .description("Leaderships this instance leads now")
                .register(registry));
        all = List.copyOf(meters);
    }

    Counter revoked(RevocationReason reason) {
        Counter counter = revoked.get(reason);
        if (counter == null) {
            throw new IllegalStateException("no revoked counter for reason " + reason); // every reason has one
        }
        return counter;
    }
}
