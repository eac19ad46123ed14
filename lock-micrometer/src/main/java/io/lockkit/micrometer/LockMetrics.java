package io.lockkit.micrometer;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LockLostException;
import io.lockkit.LockObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for one {@link DistributedLockFactory}: register it as the factory's
 * {@linkplain DistributedLockFactory.Builder#observer observer} and {@linkplain #bindTo bind} it to
 * a {@link MeterRegistry}. Meters:
 *
 * <ul>
 *   <li>{@value #ACQUIRE} (timer, tag {@code outcome}: {@code acquired}, {@code reentered},
 *       {@code busy}, {@code timed_out}, {@code interrupted}): how long acquisitions took;
 *   <li>{@value #HELD} (timer): how long holds were held, from the request that won the lock to the
 *       owner's last release;
 *   <li>{@value #LOST} (counter, tag {@code cause}: {@code lease_expired}, {@code not_held},
 *       {@code force_released}, {@code factory_closed}): holds lost;
 *   <li>{@value #RENEWAL_FAILURES} (counter): watchdog renewal batches that failed (retried until
 *       the leases' deadlines);
 *   <li>{@value #BACKEND_UNAVAILABLE} (counter): calls that found the backend unreachable or slow;
 *   <li>{@value #HOLDS_ACTIVE} (gauge): holds of this factory now held;
 *   <li>{@value #WAITERS} (gauge): threads of this factory now waiting for a busy lock;
 *   <li>{@value #LEADERSHIP_ELECTED} (counter): terms this factory's {@link io.lockkit.Leadership}s won;
 *   <li>{@value #LEADERSHIP_REVOKED} (counter, tag {@code reason}: {@code lease_expired},
 *       {@code not_held}, {@code force_released}, {@code stepped_down}, {@code closed}): terms that
 *       ended;
 *   <li>{@value #LEADERSHIP_LED} (timer): how long each term lasted, from the request that won it to
 *       its revocation;
 *   <li>{@value #LEADERSHIP_LEADING} (gauge): leaderships this factory leads now.
 * </ul>
 *
 * <p>The leadership meters appear with the first term won, so an application without leaderships
 * has none of them.
 *
 * <p>The acquire, held and lost meters and the active-holds gauge carry a tag {@value #KIND_TAG}
 * saying what the holds are: {@code exclusive} (locks, write locks, multi-locks' members),
 * {@code fair} (fair locks), {@code read} (read locks) or {@code permits} (semaphores). The
 * {@code exclusive} meters exist once bound; the others appear with the first hold of their kind.
 *
 * <p>The lock name is not a tag: names like {@code order:4711} would make a time series per order.
 * {@link Builder#lockNameTag(Function)} maps names to a small set of values for a tag
 * {@value #LOCK_TAG} on the acquire, held and lost meters and the active-holds gauge.
 *
 * <p>{@link #close()} removes the meters from the registry when the factory goes (an application
 * undeployed from a server whose registry outlives it must not leave gauges that reference it).
 *
 * <p>Thread-safe. Failure: an exception from the registry or the mapping function propagates to
 * the factory, which logs it once per method and never lets it fail a lock call; {@link #bindTo}
 * called by the application throws what the registry throws.
 */
// Design notes.
// - One class per concern: MeterSeries (the counts and meters of one set of tags), HoldMeters and
//   LeadershipMeters (a series' lock and leadership meters, each enum-keyed family in an EnumMap
//   made by MeterFamilies, so a new outcome, cause or reason gets its meter without a change here), FactoryMeters (the
//   bound registry and the meters that are per factory).
// - Meters are created once: without a name mapping, at bindTo, and each report is a volatile read
//   plus the meter's own update (no registry lookup, no Tags built, nothing allocated). With a
//   mapping, once per tag value, kept in a map keyed by that value: the mapping runs per report,
//   the registry is asked once per value.
// - Gauges read counts this class keeps whether bound or not (an acquisition before bindTo and
//   its release after it leave the active count right); they are registered with a strong
//   reference, so they do not turn to NaN when the application keeps no reference to this object.
// - Timers and counters see only what happens after bindTo: a registry has nothing to put it in before.
// - One registry: Micrometer's answer to several is a CompositeMeterRegistry; binding a second one
//   is refused rather than silently splitting the counts.
public final class LockMetrics implements LockObserver, MeterBinder, AutoCloseable {

    /** Timer of acquisitions, tagged {@value #OUTCOME_TAG}. */
    public static final String ACQUIRE = "lockkit.acquire";
    /** Timer of holds, from the winning request to the owner's last release. */
    public static final String HELD = "lockkit.held";
    /** Counter of lost holds, tagged {@value #CAUSE_TAG}. */
    public static final String LOST = "lockkit.lost";
    /** Counter of failed watchdog renewal batches. */
    public static final String RENEWAL_FAILURES = "lockkit.renewal.failures";
    /** Counter of calls that found the backend unreachable or too slow. */
    public static final String BACKEND_UNAVAILABLE = "lockkit.backend.unavailable";
    /** Gauge of the holds this factory holds now. */
    public static final String HOLDS_ACTIVE = "lockkit.holds.active";
    /** Gauge of the threads of this factory waiting for a busy lock now. */
    public static final String WAITERS = "lockkit.waiters";
    /** Counter of leadership terms won. */
    public static final String LEADERSHIP_ELECTED = "lockkit.leadership.elected";
    /** Counter of leadership terms that ended, tagged {@value #REASON_TAG}. */
    public static final String LEADERSHIP_REVOKED = "lockkit.leadership.revoked";
    /** Timer of leadership terms, from the request that won each to its revocation. */
    public static final String LEADERSHIP_LED = "lockkit.leadership.led";
    /** Gauge of the leaderships this factory leads now. */
    public static final String LEADERSHIP_LEADING = "lockkit.leadership.leading";
    /** The tag of {@value #LEADERSHIP_REVOKED} saying why the term ended. */
    public static final String REASON_TAG = "reason";
    /** The tag of {@value #ACQUIRE} saying how the acquisition ended. */
    public static final String OUTCOME_TAG = "outcome";
    /** The tag of {@value #LOST} saying why the hold was lost. */
    public static final String CAUSE_TAG = "cause";
    /** The tag of the acquire, held and lost meters and the active-holds gauge saying what the holds are. */
    public static final String KIND_TAG = "kind";
    /** The tag {@link Builder#lockNameTag(Function)} adds. */
    public static final String LOCK_TAG = "lock";

    private final Tags tags;
    private final @Nullable Function<? super String, String> lockNameTag;
    /** Without a name mapping: the series of exclusive holds (and of leaderships). */
    private final MeterSeries untagged;
    /** Every other series, by its lock-name tag value (empty without a mapping) and kind. */
    private final ConcurrentHashMap<SeriesKey, MeterSeries> byTag = new ConcurrentHashMap<>();

    /** A series' tag values: the lock-name tag's ("" without a mapping) and the kind. */
    private record SeriesKey(String lock, HoldKind kind) {}

    private final AtomicInteger waiters = new AtomicInteger();
    /** Set by close(): no meter is made after it. */
    private final AtomicBoolean closed = new AtomicBoolean();

    private volatile @Nullable FactoryMeters bound;

    private LockMetrics(Builder b) {
        this.tags = b.tags;
        this.lockNameTag = b.lockNameTag;
        this.untagged = new MeterSeries(tags, HoldKind.EXCLUSIVE, closed);
    }

    /** Metrics with no extra tags and no lock-name tag. */
    public static LockMetrics create() {
        return builder().build();
    }

    /** A builder for metrics with extra tags or a lock-name tag. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Creates the meters in {@code registry}; call it once (bind a {@code CompositeMeterRegistry}
     * to report to several). Binding the same registry again does nothing.
     *
     * @throws IllegalArgumentException if {@code registry} is null
     * @throws IllegalStateException if these metrics are bound to another registry
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
        synchronized (this) {
            if (closed.get()) {
                throw new IllegalStateException("these lock metrics are closed");
            }
            FactoryMeters b = bound;
            if (b != null) {
                if (b.registry == registry) {
                    return;
                }
                throw new IllegalStateException("these lock metrics are bound to " + b.registry
                        + " already; bind a CompositeMeterRegistry to report to several registries");
            }
            b = new FactoryMeters(registry, tags, waiters);
            if (lockNameTag == null) {
                untagged.bind(registry);
            }
            for (MeterSeries s : byTag.values()) {
                s.bind(registry);
            }
            bound = b;
        }
    }

    /**
     * Removes every meter these metrics made from their registry; afterwards they make and update
     * none (the factory they observe should be closed first). Idempotent; binding afterwards fails.
     */
    @Override
    public void close() {
        FactoryMeters b;
        synchronized (this) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            b = bound;
            bound = null;
        }
        if (b == null) {
            return;
        }
        b.remove();
        untagged.unbind(b.registry);
        for (MeterSeries series : byTag.values()) {
            series.unbind(b.registry);
        }
    }

    @Override
    public void acquired(String name, long waitedNanos, long fencingToken, boolean reentrant) {
        acquired(name, HoldKind.EXCLUSIVE, 1, waitedNanos, fencingToken, reentrant);
    }

    @Override
    public void acquired(
            String name, HoldKind kind, int permits, long waitedNanos, long fencingToken, boolean reentrant) {
        MeterSeries s = series(name, kind);
        if (!reentrant) {
            s.active.incrementAndGet();
        }
        HoldMeters m = s.meters(bound);
        if (m != null) {
            (reentrant ? m.reentered : m.acquired).record(waitedNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void notAcquired(String name, long waitedNanos, Outcome outcome) {
        notAcquired(name, HoldKind.EXCLUSIVE, waitedNanos, outcome);
    }

    @Override
    public void notAcquired(String name, HoldKind kind, long waitedNanos, Outcome outcome) {
        HoldMeters m = series(name, kind).meters(bound);
        if (m != null) {
            m.acquire(outcome).record(waitedNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void released(String name, long fencingToken, long heldNanos) {
        released(name, HoldKind.EXCLUSIVE, 1, fencingToken, heldNanos);
    }

    @Override
    public void released(String name, HoldKind kind, int permits, long fencingToken, long heldNanos) {
        MeterSeries s = series(name, kind);
        s.active.decrementAndGet();
        HoldMeters m = s.meters(bound);
        if (m != null) {
            m.held.record(heldNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void lost(String name, long fencingToken, LossCause cause, LockLostException loss) {
        lost(name, HoldKind.EXCLUSIVE, 1, fencingToken, cause, loss);
    }

    @Override
    public void lost(
            String name, HoldKind kind, int permits, long fencingToken, LossCause cause, LockLostException loss) {
        MeterSeries s = series(name, kind);
        s.active.decrementAndGet();
        HoldMeters m = s.meters(bound);
        if (m != null) {
            m.lost(cause).increment();
        }
    }

    @Override
    public void renewalFailed(int holds, RuntimeException failure) {
        FactoryMeters b = bound;
        if (b != null) {
            b.renewalFailures.increment();
        }
    }

    @Override
    public void backendUnavailable(@Nullable String name, BackendUnavailableException failure) {
        FactoryMeters b = bound;
        if (b != null) {
            b.backendUnavailable.increment();
        }
    }

    @Override
    public void waitingChanged(String name, int waiting) {
        waiters.set(waiting);
    }

    @Override
    public void elected(String name, long term) {
        MeterSeries s = series(name, HoldKind.EXCLUSIVE);
        s.leading.incrementAndGet();
        LeadershipMeters m = s.leadershipMeters(bound);
        if (m != null) {
            m.elected.increment();
        }
    }

    @Override
    public void revoked(String name, long term, RevocationReason reason, long ledNanos) {
        MeterSeries s = series(name, HoldKind.EXCLUSIVE);
        s.leading.decrementAndGet();
        LeadershipMeters m = s.leadershipMeters(bound);
        if (m != null) {
            m.revoked(reason).increment();
            m.led.record(ledNanos, TimeUnit.NANOSECONDS);
        }
    }

    private MeterSeries series(String name, HoldKind kind) {
        Function<? super String, String> mapping = lockNameTag;
        if (mapping == null && kind == HoldKind.EXCLUSIVE) {
            return untagged;
        }
        String value = mapping == null ? "" : mapping.apply(name);
        if (value == null) {
            throw new IllegalStateException("the lock-name tag mapping returned null for lock '" + name + "'");
        }
        SeriesKey key = new SeriesKey(value, kind);
        MeterSeries s = byTag.get(key);
        return s != null ? s : byTag.computeIfAbsent(key, this::newSeries);
    }

    /** A series made after bindTo is bound at its first report (MeterSeries.meters). */
    private MeterSeries newSeries(SeriesKey key) {
        return new MeterSeries(key.lock().isEmpty() ? tags : tags.and(LOCK_TAG, key.lock()), key.kind(), closed);
    }

    @Override
    public String toString() {
        FactoryMeters b = bound;
        return "LockMetrics[" + (b == null ? "not bound" : "bound to " + b.registry)
                + (lockNameTag == null ? "" : ", tag " + LOCK_TAG + " from lock names") + "]";
    }

    /**
     * Settings of {@link LockMetrics}; each setter validates its argument. Not thread-safe; the
     * built metrics are.
     */
    public static final class Builder {
        private Tags tags = Tags.empty();
        private @Nullable Function<? super String, String> lockNameTag;

        private Builder() {}

        /**
         * Tags added to every meter, e.g. to tell the factories of one application apart
         * ({@code Tags.of("factory", "orders")}); none by default.
         *
         * @throws IllegalArgumentException if {@code tags} is null
         */
        public Builder tags(Iterable<Tag> tags) {
            if (tags == null) {
                throw new IllegalArgumentException("tags must not be null");
            }
            this.tags = Tags.of(tags);
            return this;
        }

        /**
         * Adds a tag {@value #LOCK_TAG} whose value {@code mapping} derives from the lock name, e.g.
         * {@code name -> name.startsWith("order:") ? "order" : "other"}. Keep the values few: each is
         * a set of time series. The mapping is called on every lock call; it must be fast, must not
         * return null, and must not throw (a failure is logged and that call is not measured).
         *
         * @throws IllegalArgumentException if {@code mapping} is null
         */
        public Builder lockNameTag(Function<? super String, String> mapping) {
            if (mapping == null) {
                throw new IllegalArgumentException("mapping must not be null");
            }
            this.lockNameTag = mapping;
            return this;
        }

        /** Metrics with these settings, not yet bound to a registry. */
        public LockMetrics build() {
            return new LockMetrics(this);
        }
    }
}
