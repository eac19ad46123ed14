package io.lockkit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import org.jspecify.annotations.Nullable;

/**
 * lockkit's JDK Flight Recorder events, category "lockkit". Only {@link Events} touches this class,
 * and only once JFR has been started in this JVM, so a runtime without JFR, or an application that
 * never records, never loads it (nor the JDK's event instrumentation it would bring in).
 *
 * <p>Design: each method makes its event and checks {@code shouldCommit()} before setting a field:
 * with the event disabled (the default outside a recording) the JIT removes the allocation, so a
 * disabled event costs a flag check. Times are fields ({@code @Timespan}) measured by the factory's
 * ticker rather than the events' own begin/end, because the interval (a wait, a hold) spans calls
 * that keep no event object; the events are therefore instant events (duration 0) and JFR's
 * {@code threshold} setting does not apply to them.
 */
final class JfrEvents {

    private JfrEvents() {}

    /** Loads and initializes every event class (making an event commits nothing). */
    static void load() {
        new AcquireEvent();
        new HoldEvent();
        new LossEvent();
        new RenewalEvent();
        new LeadershipEvent();
    }

    @Name("lockkit.Acquire")
    @Category("lockkit")
    @Label("Lock Acquire")
    @Description("An acquisition attempt of a lockkit lock ended: acquired, busy, timed out or interrupted")
    @StackTrace(false)
    static final class AcquireEvent extends Event {
        @Label("Lock Name")
        @Nullable
        String name;

        @Label("Wait")
        @Description("Time from the start of the call to its end")
        @Timespan(Timespan.NANOSECONDS)
        long wait;

        @Label("Outcome")
        @Description("ACQUIRED, REENTERED, BUSY, TIMED_OUT or INTERRUPTED")
        @Nullable
        String outcome;

        @Label("Fencing Token")
        long token;

        @Label("Kind")
        @Description(
                "EXCLUSIVE (a lock, a write lock), FAIR (a fair lock), READ (a read lock) or PERMITS (a semaphore's)")
        @Nullable
        String kind;

        @Label("Permits")
        @Description("The permits of a semaphore's hold; 1 for every other kind")
        int permits;
    }

    @Name("lockkit.Hold")
    @Category("lockkit")
    @Label("Lock Hold")
    @Description("A hold of a lockkit lock ended by its owner's release")
    @StackTrace(false)
    static final class HoldEvent extends Event {
        @Label("Lock Name")
        @Nullable
        String name;

        @Label("Held")
        @Timespan(Timespan.NANOSECONDS)
        long held;

        @Label("Fencing Token")
        long token;

        @Label("Kind")
        @Description(
                "EXCLUSIVE (a lock, a write lock), FAIR (a fair lock), READ (a read lock) or PERMITS (a semaphore's)")
        @Nullable
        String kind;

        @Label("Permits")
        @Description("The permits of a semaphore's hold; 1 for every other kind")
        int permits;
    }

    @Name("lockkit.Loss")
    @Category("lockkit")
    @Label("Lock Loss")
    @Description("A hold of a lockkit lock ended without its owner releasing it")
    @StackTrace(false)
    static final class LossEvent extends Event {
        @Label("Lock Name")
        @Nullable
        String name;

        @Label("Fencing Token")
        long token;

        @Label("Cause")
        @Nullable
        String cause;

        @Label("Reason")
        @Nullable
        String reason;

        @Label("Kind")
        @Description(
                "EXCLUSIVE (a lock, a write lock), FAIR (a fair lock), READ (a read lock) or PERMITS (a semaphore's)")
        @Nullable
        String kind;

        @Label("Permits")
        @Description("The permits of a semaphore's hold; 1 for every other kind")
        int permits;
    }

    @Name("lockkit.Renewal")
    @Category("lockkit")
    @Label("Lease Renewal")
    @Description("One batch of watchdog lease renewals")
    @StackTrace(false)
    static final class RenewalEvent extends Event {
        @Label("Holds")
        int holds;

        @Label("Round Trips")
        @Description("Provider calls made for the batch")
        int roundTrips;

        @Label("Renewal Time")
        @Timespan(Timespan.NANOSECONDS)
        long renewalTime;

        @Label("Failed")
        boolean failed;
    }

    @Name("lockkit.Leadership")
    @Category("lockkit")
    @Label("Leadership Change")
    @Description("This instance was elected leader of a name, or its term ended")
    @StackTrace(false)
    static final class LeadershipEvent extends Event {
        @Label("Leadership Name")
        @Nullable
        String name;

        @Label("Term")
        @Description("The term number: the fencing token of the leader's hold")
        long term;

        @Label("Change")
        @Description("ELECTED or REVOKED")
        @Nullable
        String change;

        @Label("Reason")
        @Description("Why a term ended: LEASE_EXPIRED, NOT_HELD, FORCE_RELEASED, STEPPED_DOWN or CLOSED")
        @Nullable
        String reason;

        @Label("Led")
        @Description("How long the term lasted, for REVOKED")
        @Timespan(Timespan.NANOSECONDS)
        long led;
    }

    static void acquire(
            String name, String kind, int permits, Ticker ticker, long startNanos, String outcome, long token) {
        AcquireEvent e = new AcquireEvent();
        if (e.shouldCommit()) {
            e.name = name;
            e.kind = kind;
            e.permits = permits;
            e.wait = ticker.nanoTime() - startNanos;
            e.outcome = outcome;
            e.token = token;
            e.commit();
        }
    }

    static void hold(String name, String kind, int permits, Ticker ticker, long acquiredNanos, long token) {
        HoldEvent e = new HoldEvent();
        if (e.shouldCommit()) {
            e.name = name;
            e.kind = kind;
            e.permits = permits;
            e.held = ticker.nanoTime() - acquiredNanos;
            e.token = token;
            e.commit();
        }
    }

    static void loss(String name, String kind, int permits, long token, String cause, @Nullable String reason) {
        LossEvent e = new LossEvent();
        if (e.shouldCommit()) {
            e.name = name;
            e.kind = kind;
            e.permits = permits;
            e.token = token;
            e.cause = cause;
            e.reason = reason;
            e.commit();
        }
    }

    static void leadership(String name, long term, String change, @Nullable String reason, long ledNanos) {
        LeadershipEvent e = new LeadershipEvent();
        if (e.shouldCommit()) {
            e.name = name;
            e.term = term;
            e.change = change;
            e.reason = reason;
            e.led = ledNanos;
            e.commit();
        }
    }

    static void renewal(int holds, int roundTrips, Ticker ticker, long sentNanos, boolean failed) {
        RenewalEvent e = new RenewalEvent();
        if (e.shouldCommit()) {
            e.holds = holds;
            e.roundTrips = roundTrips;
            e.renewalTime = ticker.nanoTime() - sentNanos;
            e.failed = failed;
            e.commit();
        }
    }
}
