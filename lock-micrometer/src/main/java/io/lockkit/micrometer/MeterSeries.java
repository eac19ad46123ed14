package io.lockkit.micrometer;

import io.lockkit.LockObserver.HoldKind;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The locks that share one set of tags: their active-hold and leading counts and, once bound, their
 * meters. Thread-safe: the counts are atomic, the meters are made once under this object's monitor
 * and read through volatile fields.
 */
final class MeterSeries {
    /** The tags of every meter of the series but the hold meters, which add {@link LockMetrics#KIND_TAG}. */
    final Tags tags;
    /** The tags of the hold meters. */
    final Tags holdTags;

    final AtomicInteger active = new AtomicInteger();
    /** Leaderships of these names led now. */
    final AtomicInteger leading = new AtomicInteger();

    /** The metrics' closed flag: no meter is made once it is set. */
    private final AtomicBoolean closed;

    private volatile @Nullable HoldMeters meters;
    /** Made at the first leadership event once bound: none for applications without leaderships. */
    private volatile @Nullable LeadershipMeters leadershipMeters;

    MeterSeries(Tags tags, HoldKind kind, AtomicBoolean closed) {
        this.tags = tags;
        this.holdTags = tags.and(LockMetrics.KIND_TAG, kind.name().toLowerCase(java.util.Locale.ROOT));
        this.closed = closed;
    }

    /** The meters, created in the bound registry at first use; null while not bound. */
    @Nullable
    HoldMeters meters(@Nullable FactoryMeters bound) {
        HoldMeters m = meters;
        if (m != null || bound == null) {
            return m;
        }
        return bind(bound.registry);
    }

    synchronized @Nullable HoldMeters bind(MeterRegistry registry) {
        HoldMeters m = meters;
        if (m == null && !closed.get()) {
            m = new HoldMeters(registry, holdTags, active);
            meters = m;
        }
        return m;
    }

    /** The leadership meters, created in the bound registry at first use; null while not bound. */
    @Nullable
    LeadershipMeters leadershipMeters(@Nullable FactoryMeters bound) {
        LeadershipMeters m = leadershipMeters;
        if (m != null || bound == null) {
            return m;
        }
        synchronized (this) {
            m = leadershipMeters;
            if (m == null && !closed.get()) {
                m = new LeadershipMeters(bound.registry, tags, leading);
                leadershipMeters = m;
            }
            return m;
        }
    }

    /** Removes the meters from {@code registry}; none is made again (close() set the flag first). */
    synchronized void unbind(MeterRegistry registry) {
        HoldMeters m = meters;
        meters = null;
        if (m != null) {
            m.all.forEach(registry::remove);
        }
        LeadershipMeters l = leadershipMeters;
        leadershipMeters = null;
        if (l != null) {
            l.all.forEach(registry::remove);
        }
    }
}
