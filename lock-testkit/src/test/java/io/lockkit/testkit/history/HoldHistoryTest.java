package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.history.HoldHistory.Hold;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The checker on hand-made histories: what it rejects, and which overlaps it allows. */
class HoldHistoryTest {

    @Test
    @DisplayName("the checker rejects overlapping clean holds and tokens out of order, and accepts a fenced overlap")
    void checkerRejectsBrokenHistories() {
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        Hold a = new Hold(0, 100, 0, 10 * ms, true, Outcome.RELEASED);
        Hold overlapping = new Hold(1, 101, 5 * ms, 20 * ms, true, Outcome.RELEASED);
        Hold later = new Hold(1, 102, 30 * ms, 40 * ms, true, Outcome.RELEASED);
        Hold backwards = new Hold(2, 99, 50 * ms, 60 * ms, true, Outcome.RELEASED);
        Hold lost = new Hold(2, 103, 70 * ms, 90 * ms, true, Outcome.LOST_AT_RELEASE);
        Hold fenced = new Hold(3, 104, 80 * ms, 85 * ms, true, Outcome.RELEASED);
        Hold toldEarly = new Hold(0, 105, 100 * ms, 120 * ms, true, Outcome.LOST_AT_RELEASE);
        Hold afterTold = new Hold(1, 106, 110 * ms, 115 * ms, true, Outcome.RELEASED);

        assertThat(HoldHistory.check(List.of(a, later), Map.of()).passes()).isTrue();
        assertThat(HoldHistory.check(List.of(a, overlapping), Map.of()).cleanOverlaps())
                .hasSize(1);
        assertThat(HoldHistory.check(List.of(a, later, backwards), Map.of()).cleanTokenInversions())
                .hasSize(1);
        assertThat(HoldHistory.check(List.of(a, later, backwards), Map.of()).fencingViolations())
                .hasSize(1);
        assertThat(HoldHistory.check(List.of(a, a), Map.of()).duplicateTokens()).containsExactly(100L);
        HoldHistory.Report fencedOverlap = HoldHistory.check(List.of(a, later, lost, fenced), Map.of());
        assertThat(fencedOverlap.passes())
                .as("a lost hold overlapped by a greater token")
                .isTrue();
        assertThat(fencedOverlap.overlapsWithLost()).isEqualTo(1);
        // A loss the listener heard of ends the hold's valid interval there.
        assertThat(HoldHistory.check(List.of(toldEarly, afterTold), Map.of(105L, 105 * ms))
                        .overlapsWithLost())
                .isZero();
        assertThat(HoldHistory.check(List.of(toldEarly, afterTold), Map.of()).overlapsWithLost())
                .isEqualTo(1);
        // Holds valid at their end overlap only when both holders believed them valid at once.
        Hold lostButValid = new Hold(2, 107, 130 * ms, 150 * ms, true, Outcome.LOST_AT_RELEASE);
        Hold during = new Hold(3, 108, 140 * ms, 160 * ms, true, Outcome.RELEASED);
        Hold invalidAtEnd = new Hold(2, 109, 170 * ms, 190 * ms, false, Outcome.LOST_AT_RELEASE);
        Hold duringInvalid = new Hold(3, 110, 180 * ms, 200 * ms, true, Outcome.RELEASED);
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(lostButValid, during), Map.of()))
                .hasSize(1);
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(lostButValid, during), Map.of(107L, 135 * ms)))
                .isEmpty();
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(invalidAtEnd, duringInvalid), Map.of()))
                .isEmpty();
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(a, later, lost), Map.of()))
                .isEmpty();
    }
}
