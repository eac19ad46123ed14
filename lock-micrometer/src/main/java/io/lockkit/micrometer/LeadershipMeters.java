package io.lockkit.micrometer;

import static io.lockkit.micrometer.MeterFamilies.counters;
import static io.lockkit.micrometer.MeterFamilies.gauge;
import static io.lockkit.micrometer.MeterFamilies.meterFor;

import io.lockkit.Leadership.RevocationReason;
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
 * One series' leadership meters (terms won, terms ended by reason, term length, the leading gauge),
 * registered together once. Immutable after construction, so thread-safe.
 */
final class LeadershipMeters {
    final Counter elected;
    final Timer led;
    private final EnumMap<RevocationReason, Counter> revoked;
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
        revoked = counters(
                RevocationReason.class,
                LockMetrics.LEADERSHIP_REVOKED,
                LockMetrics.REASON_TAG,
                "Leadership terms that ended, by reason",
                registry,
                tags,
                meters);
        meters.add(
                gauge(LockMetrics.LEADERSHIP_LEADING, leading, "Leaderships this instance leads now", registry, tags));
        all = List.copyOf(meters);
    }

    Counter revoked(RevocationReason reason) {
        return meterFor(revoked, reason);
    }
}
