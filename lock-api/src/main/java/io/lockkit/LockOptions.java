package io.lockkit;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How to take a lock: how long to wait for it and how long to lease it. Immutable; built by
 * {@link #builder()}, whose setters reject bad values with an {@link IllegalArgumentException}
 * naming the argument.
 *
 * <p>Without an explicit lease the hold is kept by the watchdog: leased for
 * {@link #watchdogLease()} and renewed every {@link #renewalInterval()} until released, so a
 * crashed holder's lock frees itself within one watchdog lease. Options that do not set these
 * take them from the factory's {@link DistributedLockFactory#defaultOptions() default options}.
 */
public final class LockOptions {

    /** The watchdog's lease when none is set: 30 seconds. */
    public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);
    /** The shortest lease accepted: 1 millisecond, the resolution backends keep. */
    public static final Duration MIN_LEASE = Duration.ofMillis(1);
    /** The longest lease or wait accepted: about 100 years, far below nanosecond overflow. */
    public static final Duration MAX_DURATION = Duration.ofDays(36_500);

    /** The watchdog's renewal interval when neither it nor the lease is set: a third of the lease. */
    private static final Duration DEFAULT_RENEWAL_INTERVAL = DEFAULT_WATCHDOG_LEASE.dividedBy(3);

    /** Wait as long as it takes; lease kept by the watchdog. */
    public static final LockOptions DEFAULTS = builder().build();

    /** {@link #parseDuration}'s short form: at most 18 digits, so the number fits a long. */
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,18})\\s*(ms|s|m|h|d)?");

    private final @Nullable Duration wait; // null: wait forever
    private final @Nullable Duration lease; // null: watchdog
    private final @Nullable Duration watchdogLease; // null: the factory's
    private final @Nullable Duration renewalInterval; // null: a third of watchdogLease, or the factory's
    /** The renewal interval these options set: renewalInterval, else a third of watchdogLease; null for neither. */
    private final @Nullable Duration ownRenewal;

    private LockOptions(Builder b) {
        this.wait = b.wait;
        this.lease = b.lease;
        this.watchdogLease = b.watchdogLease;
        this.renewalInterval = b.renewalInterval;
        this.ownRenewal =
                renewalInterval != null ? renewalInterval : watchdogLease != null ? watchdogLease.dividedBy(3) : null;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options that try once, without waiting. */
    public static LockOptions noWait() {
        return builder().noWait().build();
    }

    /** Options that wait at most {@code wait}. */
    public static LockOptions waitAtMost(Duration wait) {
        return builder().waitAtMost(wait).build();
    }

    /**
     * Reads a duration written as lockkit's configuration and command line take it: ISO-8601
     * ({@code PT2S}, {@code PT1.5S}), or a whole number with a unit, {@code ms}, {@code s},
     * {@code m}, {@code h} or {@code d} ({@code 500ms}, {@code 30s}, {@code 5 m}); a bare number is
     * seconds. Case and surrounding spaces do not matter. Zero (and a negative ISO-8601 duration) is
     * returned as it is: the caller says which durations it accepts.
     *
     * @throws IllegalArgumentException naming {@code duration} when it is null, in none of these
     *         forms, or beyond what a {@link Duration} holds
     */
    public static Duration parseDuration(String duration) {
        if (duration == null) {
            throw new IllegalArgumentException("duration must not be null");
        }
        String text = duration.strip();
        try {
            if (text.regionMatches(true, 0, "P", 0, 1) || text.regionMatches(true, 0, "-P", 0, 2)) {
                return Duration.parse(text);
            }
            Matcher m = SIMPLE_DURATION.matcher(text.toLowerCase(Locale.ROOT));
            if (m.matches()) {
                long amount = Long.parseLong(m.group(1));
                String unit = m.group(2) == null ? "s" : m.group(2);
                return switch (unit) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    default -> Duration.ofDays(amount);
                };
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            // out of range, or ISO-8601 that does not parse: reported below
        }
        throw new IllegalArgumentException(
                "duration '" + duration
                        + "' is not ISO-8601 (PT2S) or a whole number with ms, s, m, h or d (500ms, 30s); a bare number is seconds");
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.wait = wait;
        b.lease = lease;
        b.watchdogLease = watchdogLease;
        b.renewalInterval = renewalInterval;
        return b;
    }

    /** The longest wait for a busy lock, or empty to wait as long as it takes. */
    public Optional<Duration> waitTime() {
        return Optional.ofNullable(wait);
    }

    /** The explicit lease, or empty when the watchdog keeps the hold. */
    public Optional<Duration> lease() {
        return Optional.ofNullable(lease);
    }

    /** The lease the watchdog sets and renews, or empty to use the factory's (30 s unless configured). */
    public Optional<Duration> watchdogLease() {
        return Optional.ofNullable(watchdogLease);
    }

    /** How often the watchdog renews, or empty to use the factory's (a third of the watchdog lease). */
    public Optional<Duration> renewalInterval() {
        return Optional.ofNullable(ownRenewal);
    }

    /** The watchdog lease these options give, falling back to {@code defaults} and then to 30 s. */
    Duration effectiveWatchdogLease(LockOptions defaults) {
        return watchdogLease != null
                ? watchdogLease
                : defaults.watchdogLease != null ? defaults.watchdogLease : DEFAULT_WATCHDOG_LEASE;
    }

    /** The renewal interval these options give, falling back like {@link #effectiveWatchdogLease}. */
    Duration effectiveRenewalInterval(LockOptions defaults) {
        // Computed when the options were built: this runs on every acquisition.
        return ownRenewal != null
                ? ownRenewal
                : defaults.ownRenewal != null ? defaults.ownRenewal : DEFAULT_RENEWAL_INTERVAL;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other
                && Objects.equals(wait, other.wait)
                && Objects.equals(lease, other.lease)
                && Objects.equals(watchdogLease, other.watchdogLease)
                && Objects.equals(renewalInterval, other.renewalInterval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(wait, lease, watchdogLease, renewalInterval);
    }

    @Override
    public String toString() {
        return "LockOptions[wait=" + (wait == null ? "forever" : wait)
                + ", lease="
                + (lease == null
                        ? "watchdog "
                                + (watchdogLease == null
                                        ? "(factory's)"
                                        : watchdogLease + " renewed every "
                                                + (renewalInterval == null ? "(factory's)" : renewalInterval))
                        : lease)
                + "]";
    }

    /** Builds {@link LockOptions}; each setter validates its argument. Not thread-safe. */
    public static final class Builder {
        private @Nullable Duration wait;
        private @Nullable Duration lease;
        private @Nullable Duration watchdogLease;
        private @Nullable Duration renewalInterval;

        private Builder() {}

        /** Wait at most {@code wait} for a busy lock; zero means try once. */
        public Builder waitAtMost(Duration wait) {
            this.wait = check("wait", wait, Duration.ZERO);
            return this;
        }

        /** Try once and give up if the lock is busy. */
        public Builder noWait() {
            this.wait = Duration.ZERO;
            return this;
        }

        /** Wait as long as it takes (the default). */
        public Builder waitForever() {
            this.wait = null;
            return this;
        }

        /** Lease the hold for exactly {@code lease}, without renewal: it lapses unless released or extended. */
        public Builder lease(Duration lease) {
            this.lease = check("lease", lease, MIN_LEASE);
            return this;
        }

        /** Let the watchdog keep the hold until it is released (the default). */
        public Builder watchdog() {
            this.lease = null;
            return this;
        }

        /** The lease the watchdog sets and renews; its renewal interval becomes a third of it unless set. */
        public Builder watchdogLease(Duration watchdogLease) {
            this.watchdogLease = check("watchdogLease", watchdogLease, MIN_LEASE.multipliedBy(3));
            return this;
        }

        /** How often the watchdog renews; must be shorter than the watchdog lease. */
        public Builder renewalInterval(Duration renewalInterval) {
            this.renewalInterval = check("renewalInterval", renewalInterval, MIN_LEASE);
            return this;
        }

        /**
         * Builds the options.
         *
         * @throws IllegalArgumentException when the renewal interval is not shorter than the watchdog lease
         */
        public LockOptions build() {
            Duration lease =
                    watchdogLease != null ? watchdogLease : renewalInterval != null ? DEFAULT_WATCHDOG_LEASE : null;
            if (renewalInterval != null && renewalInterval.compareTo(lease) >= 0) {
                throw new IllegalArgumentException(
                        "renewalInterval (" + renewalInterval + ") must be shorter than watchdogLease (" + lease + ")");
            }
            return new LockOptions(this);
        }

        private static Duration check(String argument, Duration value, Duration min) {
            if (value == null) {
                throw new IllegalArgumentException(argument + " must not be null");
            }
            if (value.compareTo(min) < 0) {
                throw new IllegalArgumentException(argument + " must be at least " + min + ", was " + value);
            }
            if (value.compareTo(MAX_DURATION) > 0) {
                throw new IllegalArgumentException(argument + " must be at most " + MAX_DURATION + ", was " + value);
            }
            return value;
        }
    }
}
