package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.history.TermHistory.Fault;
import io.lockkit.testkit.history.TermHistory.Outage;
import io.lockkit.testkit.history.TermHistory.Report;
import io.lockkit.testkit.history.TermHistory.Term;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link TermHistory} on histories written by hand (times in milliseconds for reading, nanoseconds inside). */
class TermHistoryTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration WAKE_UP = Duration.ofSeconds(1);
    private static final long MS = 1_000_000L;

    /** A term working every 10 ms from {@code from} to {@code to}, told at {@code told} (revoked and lost). */
    private static Term term(int process, long token, long from, long to, String reason, long told) {
        List<Long> work = new ArrayList<>();
        for (long t = from; t <= to; t += 10) {
            work.add(t * MS);
        }
        long toldNanos = told == TermHistory.NONE ? TermHistory.NONE : told * MS;
        return new Term(process, token, from * MS, work, reason, toldNanos, toldNanos, toldNanos);
    }

    private static Report check(List<Term> terms, List<Outage> outages, List<Fault> faults) {
        return TermHistory.check(terms, outages, faults, LEASE, WAKE_UP);
    }

    private static Fault fault(String name, long startMs, long endMs, long anchorMs, int excluded) {
        return new Fault(name, startMs * MS, endMs * MS, anchorMs * MS, excluded);
    }

    @Test
    @DisplayName("a clean history passes: hand-overs told first, terms increase, elections within the bound")
    void cleanHistoryPasses() {
        Report r = check(
                List.of(
                        term(0, 10, 0, 1000, "STEPPED_DOWN", 1005),
                        term(1, 11, 1010, 3000, "LEASE_EXPIRED", 3100),
                        term(2, 12, 5000, 8000, "CLOSED", 8001)),
                List.of(),
                List.of(fault("backend stalled", 2500, 4500, 4500, -1)));
        assertThat(r.passes()).as(r.violations()).isTrue();
        assertThat(r.electionMillis()).containsEntry("backend stalled", List.of(500L));
        assertThat(r.workStamps()).isPositive();
    }

    @Test
    @DisplayName("a deposed leader that keeps working beside its successor is an overlap")
    void deposedLeaderStillWorkingIsAnOverlap() {
        Report r = check(
                List.of(term(0, 10, 0, 1500, "LEASE_EXPIRED", 900), term(1, 11, 1000, 2000, "CLOSED", 2001)),
                List.of(),
                List.of());
        assertThat(r.overlaps()).hasSize(1);
        assertThat(r.overlaps().get(0)).contains("term 10 of process 0").contains("term 11 of process 1");
        assertThat(r.passes()).isFalse();
    }

    @Test
    @DisplayName("an overlap after the backend lost the hold is counted apart when the later term is larger")
    void lostHoldOverlapIsCountedApart() {
        Report r = check(
                List.of(term(0, 10, 0, 1500, "NOT_HELD", 1510), term(1, 11, 1000, 2000, "CLOSED", 2001)),
                List.of(),
                List.of());
        assertThat(r.overlaps()).isEmpty();
        assertThat(r.lostHoldOverlaps()).isEqualTo(1);
        // ... but it is still a leader told after its successor began
        assertThat(r.toldLate()).hasSize(1);
    }

    @Test
    @DisplayName("a term not larger than the one before, or a token twice, breaks the order")
    void tokensMustIncrease() {
        Report r = check(
                List.of(
                        term(0, 10, 0, 100, "STEPPED_DOWN", 105),
                        term(1, 9, 200, 300, "STEPPED_DOWN", 305),
                        term(2, 9, 400, 500, "CLOSED", 505)),
                List.of(),
                List.of());
        assertThat(r.tokenOrder()).hasSize(3); // 9 after 10, 9 after 9, 9 twice
    }

    @Test
    @DisplayName("a running leader told after its successor was elected, or never, is told late")
    void runningLeaderMustBeToldFirst() {
        Report late = check(
                List.of(term(0, 10, 0, 100, "LEASE_EXPIRED", 250), term(1, 11, 200, 300, "CLOSED", 301)),
                List.of(),
                List.of());
        assertThat(late.toldLate()).singleElement().asString().contains("onRevoked ended");
        Report never = check(
                List.of(term(0, 10, 0, 100, null, TermHistory.NONE), term(1, 11, 200, 300, "CLOSED", 301)),
                List.of(),
                List.of());
        assertThat(never.toldLate()).singleElement().asString().contains("never ran");
        Term lostLate = new Term(0, 10, 0, List.of(50 * MS), "LEASE_EXPIRED", 100 * MS, 150 * MS, 250 * MS);
        Report lost = check(List.of(lostLate, term(1, 11, 200, 300, "CLOSED", 301)), List.of(), List.of());
        assertThat(lost.toldLate()).singleElement().asString().contains("lost()");
    }

    @Test
    @DisplayName("an onRevoked that started before its term's lost() completed is reported, though both came in time")
    void onRevokedBeforeLostIsReported() {
        // Told at 100 ms (onRevoked) and 104 ms (lost()), the successor elected at 200 ms: in time, out of order.
        Term outOfOrder = new Term(0, 10, 0, List.of(50 * MS), "LEASE_EXPIRED", 100 * MS, 101 * MS, 104 * MS);
        Report r = check(List.of(outOfOrder, term(1, 11, 200, 300, "CLOSED", 301)), List.of(), List.of());
        assertThat(r.toldLate()).isEmpty();
        assertThat(r.revokedBeforeLost())
                .singleElement()
                .asString()
                .contains("term 10")
                .contains("4,000 us before its lost() completed");
        assertThat(r.passes()).isFalse();
        assertThat(r.violations()).startsWith("onRevoked before lost(): ");

        Term inOrder = new Term(0, 10, 0, List.of(50 * MS), "LEASE_EXPIRED", 104 * MS, 105 * MS, 100 * MS);
        assertThat(check(List.of(inOrder, term(1, 11, 200, 300, "CLOSED", 301)), List.of(), List.of())
                        .passes())
                .isTrue();
    }

    @Test
    @DisplayName("a paused leader is told after it runs again; one never told is late; a killed one is exempt")
    void pausedAndKilledLeaders() {
        List<Term> paused =
                List.of(term(0, 10, 0, 100, "LEASE_EXPIRED", 3200), term(1, 11, 2200, 4000, "CLOSED", 4001));
        List<Outage> pause = List.of(new Outage(0, 110 * MS, 3100 * MS));
        assertThat(check(paused, pause, List.of()).passes()).isTrue();

        List<Term> pausedNeverTold =
                List.of(term(0, 10, 0, 100, null, TermHistory.NONE), term(1, 11, 2200, 4000, "CLOSED", 4001));
        assertThat(check(pausedNeverTold, pause, List.of()).toldLate()).hasSize(1);

        List<Term> killed =
                List.of(term(0, 10, 0, 100, null, TermHistory.NONE), term(1, 11, 2200, 4000, "CLOSED", 4001));
        assertThat(check(killed, List.of(new Outage(0, 110 * MS, Long.MAX_VALUE)), List.of())
                        .passes())
                .isTrue();
    }

    @Test
    @DisplayName(
            "an election later than lease + wake-up after a fault's anchor is slow; the faulted process's own term does not count")
    void slowElectionsAreReported() {
        List<Term> terms =
                List.of(term(0, 10, 0, 1000, null, TermHistory.NONE), term(1, 11, 4500, 5000, "CLOSED", 5001));
        Report r = check(
                terms,
                List.of(new Outage(0, 1000 * MS, Long.MAX_VALUE)),
                List.of(fault("leader killed", 995, 1000, 995, 0)));
        assertThat(r.slowElections())
                .singleElement()
                .asString()
                .contains("leader killed")
                .contains("3505 ms");
        assertThat(r.electionMillis()).containsEntry("leader killed", List.of(3505L));

        Report none = check(
                List.of(term(0, 10, 0, 1000, "CLOSED", 1001)),
                List.of(),
                List.of(fault("backend restarted", 1500, 1600, 1600, -1)));
        assertThat(none.slowElections()).singleElement().asString().contains("no term worked afterwards");
    }
}
