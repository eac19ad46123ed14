package io.lockkit;

import io.lockkit.Leadership.RevocationReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link Leadership} campaigns and leads: the leader's lease, how much of it is kept back to
 * tell the leader in time, how long it sits out after stepping down, and the callbacks. Immutable;
 * built by {@link #builder()}, whose setters reject bad values with an
 * {@link IllegalArgumentException} naming the argument.
 *
 * <p>The lease is the failover time: an instance that dies or stops renewing is replaced about one
 * lease after its last renewal. A leader that runs and reaches the backend keeps its term however
 * long it lasts (the watchdog renews it every {@link #renewalInterval()}).
 */
public final class LeadershipOptions {

    /** The longest pause between campaign attempts while the backend fails, unless set: 1 second. */
    public static final Duration DEFAULT_MAX_RETRY_DELAY = Duration.ofSeconds(1);
    /** The shortest lease a leadership accepts: 30 milliseconds. */
    public static final Duration MIN_LEASE = Duration.ofMillis(30);

    /** Every default: the factory's watchdog lease, no callbacks. */
    public static final LeadershipOptions DEFAULTS = builder().build();

    private final @Nullable Duration lease;
    private final @Nullable Duration renewalInterval;
    private final @Nullable Duration revocationMargin;
    private final @Nullable Duration rejoinDelay;
    private final Duration maxRetryDelay;
    private final List<Consumer<? super Term>> electedListeners;
    private final List<BiConsumer<? super Term, RevocationReason>> revokedListeners;

    private LeadershipOptions(Builder b) {
        this.lease = b.lease;
        this.renewalInterval = b.renewalInterval;
        this.revocationMargin = b.revocationMargin;
        this.rejoinDelay = b.rejoinDelay;
        this.maxRetryDelay = b.maxRetryDelay;
        this.electedListeners = List.copyOf(b.elected);
        this.revokedListeners = List.copyOf(b.revoked);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The leader's lease, or empty for the factory's default watchdog lease (30 s unless configured). */
    public Optional<Duration> lease() {
        return Optional.ofNullable(lease);
    }

    /** How often the leader's lease is renewed, or empty for a third of the lease. */
    public Optional<Duration> renewalInterval() {
        return Optional.ofNullable(renewalInterval);
    }

    /**
     * How long before its lease ends on this instance's clock a term is revoked when the lease
     * could not be renewed, or empty for a tenth of the lease: time for {@link Term#lost()} and
     * {@code onRevoked} to complete, and the allowance for this clock running slower than the
     * backend's.
     */
    public Optional<Duration> revocationMargin() {
        return Optional.ofNullable(revocationMargin);
    }

    /** How long an instance that stepped down sits out before campaigning again, or empty for one lease. */
    public Optional<Duration> rejoinDelay() {
        return Optional.ofNullable(rejoinDelay);
    }

    /** The longest pause between campaign attempts while the backend fails (they start at 50 ms and double). */
    public Duration maxRetryDelay() {
        return maxRetryDelay;
    }

    /** The values in force for a factory whose default options are {@code defaults}. */
    Resolved resolve(LockOptions defaults) {
        Duration l = lease != null ? lease : defaults.effectiveWatchdogLease(defaults);
        if (l.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException("lease must be at least " + MIN_LEASE + " for a leadership; the"
                    + " factory's default watchdog lease is " + l + ": set LeadershipOptions.lease");
        }
        Duration interval = renewalInterval != null ? renewalInterval : l.dividedBy(3);
        Duration margin = revocationMargin != null ? revocationMargin : l.dividedBy(10);
        checkTogether(l, interval, margin);
        return new Resolved(
                l,
                interval,
                margin,
                rejoinDelay != null ? rejoinDelay : l,
                maxRetryDelay,
                electedListeners,
                revokedListeners);
    }

    /** Renewal before the lease's end, and a margin that leaves the renewal time to renew. */
    private static void checkTogether(Duration lease, Duration interval, Duration margin) {
        if (interval.compareTo(lease) >= 0) {
            throw new IllegalArgumentException(
                    "renewalInterval (" + interval + ") must be shorter than the lease (" + lease + ")");
        }
        if (margin.compareTo(lease.minus(interval)) >= 0) {
            throw new IllegalArgumentException("revocationMargin (" + margin + ") must be shorter than the lease less"
                    + " the renewal interval (" + lease + " - " + interval + "), or no renewal could keep a term");
        }
    }

    @Override
    public String toString() {
        return "LeadershipOptions[lease=" + (lease == null ? "(factory's)" : lease)
                + ", renewalInterval=" + (renewalInterval == null ? "(lease/3)" : renewalInterval)
                + ", revocationMargin=" + (revocationMargin == null ? "(lease/10)" : revocationMargin)
                + ", rejoinDelay=" + (rejoinDelay == null ? "(lease)" : rejoinDelay)
                + ", maxRetryDelay=" + maxRetryDelay
                + ", listeners=" + (electedListeners.size() + revokedListeners.size()) + "]";
    }

    /** Options with every default resolved against the factory's. */
    record Resolved(
            Duration lease,
            Duration renewalInterval,
            Duration margin,
            Duration rejoinDelay,
            Duration maxRetryDelay,
            List<Consumer<? super Term>> elected,
            List<BiConsumer<? super Term, RevocationReason>> revoked) {

        // Written out, as in Grant: a record's generated equals/hashCode goes through
        // java.lang.runtime.ObjectMethods, whose cache on JDK 17 keeps the class (and a Jakarta EE
        // application's class loader) alive after undeploy. Identity is all that is needed here.
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }

        @Override
        public String toString() {
            return "lease " + lease + ", renewal every " + renewalInterval + ", margin " + margin;
        }
    }

    /** Builds {@link LeadershipOptions}; each setter validates its argument. Not thread-safe. */
    public static final class Builder {
        private @Nullable Duration lease;
        private @Nullable Duration renewalInterval;
        private @Nullable Duration revocationMargin;
        private @Nullable Duration rejoinDelay;
        private Duration maxRetryDelay = DEFAULT_MAX_RETRY_DELAY;
        private final List<Consumer<? super Term>> elected = new ArrayList<>();
        private final List<BiConsumer<? super Term, RevocationReason>> revoked = new ArrayList<>();

        private Builder() {}

        /** The leader's lease: about the time to replace a leader that died (default: the factory's watchdog lease). */
        public Builder lease(Duration lease) {
            this.lease = check("lease", lease, MIN_LEASE);
            return this;
        }

        /** How often the leader's lease is renewed (default: a third of the lease). */
        public Builder renewalInterval(Duration renewalInterval) {
            this.renewalInterval = check("renewalInterval", renewalInterval, LockOptions.MIN_LEASE);
            return this;
        }

        /**
         * How long before its lease ends on this instance's clock an unrenewed term is revoked
         * (default: a tenth of the lease); zero revokes at the lease's end, as a hold's loss is
         * reported, which leaves the callbacks no time.
         */
        public Builder revocationMargin(Duration revocationMargin) {
            this.revocationMargin = check("revocationMargin", revocationMargin, Duration.ZERO);
            return this;
        }

        /** How long an instance sits out after stepping down (default: one lease); zero campaigns again at once. */
        public Builder rejoinDelay(Duration rejoinDelay) {
            this.rejoinDelay = check("rejoinDelay", rejoinDelay, Duration.ZERO);
            return this;
        }

        /** The longest pause between campaign attempts while the backend fails (default 1 s, at least 1 ms). */
        public Builder maxRetryDelay(Duration maxRetryDelay) {
            this.maxRetryDelay = check("maxRetryDelay", maxRetryDelay, LockOptions.MIN_LEASE);
            return this;
        }

        /**
         * Adds a callback for each term this instance wins, called on the leadership's thread (see
         * {@link Leadership}); each call adds one more, called in the order added.
         */
        public Builder onElected(Consumer<? super Term> listener) {
            if (listener == null) {
                throw new IllegalArgumentException("onElected listener must not be null");
            }
            elected.add(listener);
            return this;
        }

        /**
         * Adds a callback for the end of each term, with the reason, called on the leadership's
         * thread after the term's {@code onElected} (see {@link Leadership}); each call adds one
         * more, called in the order added.
         */
        public Builder onRevoked(BiConsumer<? super Term, RevocationReason> listener) {
            if (listener == null) {
                throw new IllegalArgumentException("onRevoked listener must not be null");
            }
            revoked.add(listener);
            return this;
        }

        /**
         * Builds the options.
         *
         * @throws IllegalArgumentException when the lease is set and the renewal interval is not
         *         shorter than it, or the margin not shorter than the lease less the interval
         */
        public LeadershipOptions build() {
            if (lease != null) {
                checkTogether(
                        lease,
                        renewalInterval != null ? renewalInterval : lease.dividedBy(3),
                        revocationMargin != null ? revocationMargin : lease.dividedBy(10));
            }
            return new LeadershipOptions(this);
        }

        private static Duration check(String argument, Duration value, Duration min) {
            if (value == null) {
                throw new IllegalArgumentException(argument + " must not be null");
            }
            if (value.compareTo(min) < 0) {
                throw new IllegalArgumentException(argument + " must be at least " + min + ", was " + value);
            }
            if (value.compareTo(LockOptions.MAX_DURATION) > 0) {
                throw new IllegalArgumentException(
                        argument + " must be at most " + LockOptions.MAX_DURATION + ", was " + value);
            }
            return value;
        }
    }
}
