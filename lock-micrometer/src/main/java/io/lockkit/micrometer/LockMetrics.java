package io.lockkit.micrometer;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LockLostException;
import io.lockkit.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Locale;
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
    /** The tag {@link Builder#lockNameTag(Function)} adds. */
    public static final String LOCK_TAG = "lock";

    private final Tags tags;
    private final @Nullable Function<? super String, String> lockNameTag;
    /** Without a name mapping: the only series. */
    private final Series untagged;
    /** With a name mapping: a series per tag value. */
    private final ConcurrentHashMap<String, Series> byTag = new ConcurrentHashMap<>();

    private final AtomicInteger waiters = new AtomicInteger();
    /** Set by close(): no meter is made after it. */
    private final AtomicBoolean closed = new AtomicBoolean();

    private volatile @Nullable Bound bound;

    private LockMetrics(Builder b) {
        this.tags = b.tags;
        this.lockNameTag = b.lockNameTag;
        this.untagged = new Series(tags, closed);
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
            Bound b = bound;
            if (b != null) {
                if (b.registry == registry) {
                    return;
                }
                throw new IllegalStateException("these lock metrics are bound to " + b.registry
                        + " already; bind a CompositeMeterRegistry to report to several registries");
            }
            Counter renewalFailures = Counter.builder(RENEWAL_FAILURES)
                    .tags(tags)
                    .description("Watchdog renewal batches that failed (retried until the leases' deadlines)")
                    .register(registry);
            Counter unavailable = Counter.builder(BACKEND_UNAVAILABLE)
                    .tags(tags)
                    .description("Lock calls and renewals that found the backend unreachable or too slow")
                    .register(registry);
            Gauge waiting = Gauge.builder(WAITERS, waiters, AtomicInteger::get)
                    .tags(tags)
                    .strongReference(true)
                    .description("Threads waiting for a busy lock")
                    .register(registry);
            b = new Bound(registry, renewalFailures, unavailable, waiting);
            if (lockNameTag == null) {
                untagged.bind(registry);
            } else {
                for (Series s : byTag.values()) {
                    s.bind(registry);
                }
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
        Bound b;
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
        b.registry.remove(b.renewalFailures);
        b.registry.remove(b.backendUnavailable);
        b.registry.remove(b.waiting);
        untagged.unbind(b.registry);
        for (Series series : byTag.values()) {
            series.unbind(b.registry);
        }
    }

    @Override
    public void acquired(String name, long waitedNanos, long fencingToken, boolean reentrant) {
        Series s = series(name);
        if (!reentrant) {
            s.active.incrementAndGet();
        }
        Meters m = s.meters(bound);
        if (m != null) {
            (reentrant ? m.reentered : m.acquired).record(waitedNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void notAcquired(String name, long waitedNanos, Outcome outcome) {
        Meters m = series(name).meters(bound);
        if (m != null) {
            m.acquire(outcome).record(waitedNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void released(String name, long fencingToken, long heldNanos) {
        Series s = series(name);
        s.active.decrementAndGet();
        Meters m = s.meters(bound);
        if (m != null) {
            m.held.record(heldNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void lost(String name, long fencingToken, LossCause cause, LockLostException loss) {
        Series s = series(name);
        s.active.decrementAndGet();
        Meters m = s.meters(bound);
        if (m != null) {
            m.lost(cause).increment();
        }
    }

    @Override
    public void renewalFailed(int holds, RuntimeException failure) {
        Bound b = bound;
        if (b != null) {
            b.renewalFailures.increment();
        }
    }

    @Override
    public void backendUnavailable(@Nullable String name, BackendUnavailableException failure) {
        Bound b = bound;
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
        Series s = series(name);
        s.leading.incrementAndGet();
        LeadershipMeters m = s.leadershipMeters(bound);
        if (m != null) {
            m.elected.increment();
        }
    }

    @Override
    public void revoked(String name, long term, RevocationReason reason, long ledNanos) {
        Series s = series(name);
        s.leading.decrementAndGet();
        LeadershipMeters m = s.leadershipMeters(bound);
        if (m != null) {
            m.revoked(reason).increment();
            m.led.record(ledNanos, TimeUnit.NANOSECONDS);
        }
    }

    private Series series(String name) {
        Function<? super String, String> mapping = lockNameTag;
        if (mapping == null) {
            return untagged;
        }
        String value = mapping.apply(name);
        if (value == null) {
            throw new IllegalStateException("the lock-name tag mapping returned null for lock '" + name + "'");
        }
        Series s = byTag.get(value);
        return s != null ? s : byTag.computeIfAbsent(value, v -> new Series(tags.and(LOCK_TAG, v), closed));
    }

    @Override
    public String toString() {
        Bound b = bound;
        return "LockMetrics[" + (b == null ? "not bound" : "bound to " + b.registry)
                + (lockNameTag == null ? "" : ", tag " + LOCK_TAG + " from lock names") + "]";
    }

    /** The registry and the meters that are not per series. */
    private static final class Bound {
        final MeterRegistry registry;
        final Counter renewalFailures;
        final Counter backendUnavailable;
        final Gauge waiting;

        Bound(MeterRegistry registry, Counter renewalFailures, Counter backendUnavailable, Gauge waiting) {
            this.registry = registry;
            this.renewalFailures = renewalFailures;
            this.backendUnavailable = backendUnavailable;
            this.waiting = waiting;
        }
    }

    /** The locks that share one set of tags: their active-hold count and, once bound, their meters. */
    private static final class Series {
        final Tags tags;
        final AtomicInteger active = new AtomicInteger();
        /** Leaderships of these names led now. */
        final AtomicInteger leading = new AtomicInteger();

        private final AtomicBoolean closed;
        volatile @Nullable Meters meters;
        /** Made at the first leadership event once bound: none for applications without leaderships. */
        volatile @Nullable LeadershipMeters leadershipMeters;

        Series(Tags tags, AtomicBoolean closed) {
            this.tags = tags;
            this.closed = closed;
        }

        /** The meters, created in the bound registry at first use; null while not bound. */
        @Nullable
        Meters meters(@Nullable Bound b) {
            Meters m = meters;
            if (m != null || b == null) {
                return m;
            }
            return bind(b.registry);
        }

        synchronized @Nullable Meters bind(MeterRegistry registry) {
            Meters m = meters;
            if (m == null && !closed.get()) {
                m = new Meters(registry, tags, active);
                meters = m;
            }
            return m;
        }

        /** The leadership meters, created in the bound registry at first use; null while not bound. */
        @Nullable
        LeadershipMeters leadershipMeters(@Nullable Bound b) {
            LeadershipMeters m = leadershipMeters;
            if (m != null || b == null) {
                return m;
            }
            synchronized (this) {
                m = leadershipMeters;
                if (m == null && !closed.get()) {
                    m = new LeadershipMeters(b.registry, tags, leading);
                    leadershipMeters = m;
                }
                return m;
            }
        }

        /** Removes the meters from {@code registry}; none is made again (close() set the flag first). */
        synchronized void unbind(MeterRegistry registry) {
            Meters m = meters;
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

    /** One series' leadership meters, created once. */
    private static final class LeadershipMeters {
        final Counter elected;
        final Timer led;
        final Counter leaseExpired;
        final Counter notHeld;
        final Counter forceReleased;
        final Counter steppedDown;
        final Counter closed;
        /** Every meter above and the leading gauge, to remove them at close. */
        final List<Meter> all;

        LeadershipMeters(MeterRegistry registry, Tags tags, AtomicInteger leading) {
            elected = Counter.builder(LEADERSHIP_ELECTED)
                    .tags(tags)
                    .description("Leadership terms won by this instance")
                    .register(registry);
            led = Timer.builder(LEADERSHIP_LED)
                    .tags(tags)
                    .description("How long leadership terms lasted, from the winning request to the revocation")
                    .register(registry);
            leaseExpired = revokedCounter(registry, tags, RevocationReason.LEASE_EXPIRED);
            notHeld = revokedCounter(registry, tags, RevocationReason.NOT_HELD);
            forceReleased = revokedCounter(registry, tags, RevocationReason.FORCE_RELEASED);
            steppedDown = revokedCounter(registry, tags, RevocationReason.STEPPED_DOWN);
            closed = revokedCounter(registry, tags, RevocationReason.CLOSED);
            Gauge gauge = Gauge.builder(LEADERSHIP_LEADING, leading, AtomicInteger::get)
                    .tags(tags)
                    .strongReference(true)
                    .description("Leaderships this instance leads now")
                    .register(registry);
            all = List.of(elected, led, leaseExpired, notHeld, forceReleased, steppedDown, closed, gauge);
        }

        Counter revoked(RevocationReason reason) {
            return switch (reason) {
                case LEASE_EXPIRED -> leaseExpired;
                case NOT_HELD -> notHeld;
                case FORCE_RELEASED -> forceReleased;
                case STEPPED_DOWN -> steppedDown;
                case CLOSED -> closed;
            };
        }

        private static Counter revokedCounter(MeterRegistry registry, Tags tags, RevocationReason reason) {
            return Counter.builder(LEADERSHIP_REVOKED)
                    .tags(tags)
                    .tag(REASON_TAG, tagValue(reason))
                    .description("Leadership terms that ended, by reason")
                    .register(registry);
        }
    }

    /** One series' meters, created once. */
    private static final class Meters {
        final Timer acquired;
        final Timer reentered;
        final Timer busy;
        final Timer timedOut;
        final Timer interrupted;
        final Timer held;
        final Counter leaseExpired;
        final Counter notHeld;
        final Counter forceReleased;
        final Counter factoryClosed;
        /** Every meter above and the active-holds gauge, to remove them at close. */
        final List<Meter> all;

        Meters(MeterRegistry registry, Tags tags, AtomicInteger active) {
            acquired = acquireTimer(registry, tags, "acquired");
            reentered = acquireTimer(registry, tags, "reentered");
            busy = acquireTimer(registry, tags, tagValue(Outcome.BUSY));
            timedOut = acquireTimer(registry, tags, tagValue(Outcome.TIMED_OUT));
            interrupted = acquireTimer(registry, tags, tagValue(Outcome.INTERRUPTED));
            held = Timer.builder(HELD)
                    .tags(tags)
                    .description("How long locks were held, from the winning request to the owner's last release")
                    .register(registry);
            leaseExpired = lostCounter(registry, tags, LossCause.LEASE_EXPIRED);
            notHeld = lostCounter(registry, tags, LossCause.NOT_HELD);
            forceReleased = lostCounter(registry, tags, LossCause.FORCE_RELEASED);
            factoryClosed = lostCounter(registry, tags, LossCause.FACTORY_CLOSED);
            Gauge holds = Gauge.builder(HOLDS_ACTIVE, active, AtomicInteger::get)
                    .tags(tags)
                    .strongReference(true)
                    .description("Holds held now")
                    .register(registry);
            all = List.of(
                    acquired,
                    reentered,
                    busy,
                    timedOut,
                    interrupted,
                    held,
                    leaseExpired,
                    notHeld,
                    forceReleased,
                    factoryClosed,
                    holds);
        }

        Timer acquire(Outcome outcome) {
            return switch (outcome) {
                case BUSY -> busy;
                case TIMED_OUT -> timedOut;
                case INTERRUPTED -> interrupted;
            };
        }

        Counter lost(LossCause cause) {
            return switch (cause) {
                case LEASE_EXPIRED -> leaseExpired;
                case NOT_HELD -> notHeld;
                case FORCE_RELEASED -> forceReleased;
                case FACTORY_CLOSED -> factoryClosed;
            };
        }

        private static Timer acquireTimer(MeterRegistry registry, Tags tags, String outcome) {
            return Timer.builder(ACQUIRE)
                    .tags(tags)
                    .tag(OUTCOME_TAG, outcome)
                    .description("How long lock acquisitions took, by how they ended")
                    .register(registry);
        }

        private static Counter lostCounter(MeterRegistry registry, Tags tags, LossCause cause) {
            return Counter.builder(LOST)
                    .tags(tags)
                    .tag(CAUSE_TAG, tagValue(cause))
                    .description("Holds lost before their owner released them")
                    .register(registry);
        }
    }

    private static String tagValue(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
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
