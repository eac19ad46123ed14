package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.testkit.history.ClaimHistory.Hold;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The checker of holds with a mode and a weight on hand-made histories: what it rejects, and what it allows. */
class ClaimHistoryTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private static Hold read(int client, long token, long from, long to) {
        return new Hold(client, token, false, 1, from * MS, to * MS, true, Outcome.RELEASED);
    }

    private static Hold write(int client, long token, long from, long to) {
        return new Hold(client, token, true, 1, from * MS, to * MS, true, Outcome.RELEASED);
    }

    private static Hold permits(int client, long token, int weight, long from, long to) {
        return new Hold(client, token, false, weight, from * MS, to * MS, true, Outcome.RELEASED);
    }

    @Test
    @DisplayName("overlapping reads pass; a write overlapping a read, or a read overlapping a write, is rejected")
    void writeOverlappingReadIsRejected() {
        List<Hold> reads = List.of(read(0, 1, 0, 10), read(1, 2, 5, 20), read(2, 3, 8, 12));
        ClaimHistory.Report ok = ClaimHistory.check(reads, Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(ok.passes()).isTrue();
        assertThat(ok.maxWeight()).isEqualTo(3);

        ClaimHistory.Report writeDuringRead =
                ClaimHistory.check(List.of(read(0, 1, 0, 10), write(1, 2, 5, 20)), Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(writeDuringRead.exclusionViolations()).hasSize(1);
        assertThat(writeDuringRead.passes()).isFalse();

        ClaimHistory.Report readDuringWrite =
                ClaimHistory.check(List.of(write(0, 1, 0, 10), read(1, 2, 5, 20)), Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(readDuringWrite.exclusionViolations()).hasSize(1);

        ClaimHistory.Report twoWrites =
                ClaimHistory.check(List.of(write(0, 1, 0, 10), write(1, 2, 9, 20)), Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(twoWrites.exclusionViolations()).hasSize(1);

        ClaimHistory.Report backToBack = ClaimHistory.check(
                List.of(write(0, 1, 0, 10), read(1, 2, 10, 20), write(2, 3, 20, 30)), Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(backToBack.passes())
                .as("holds that meet without overlapping")
                .isTrue();
    }

    @Test
    @DisplayName("permits up to the capacity pass; N+1 permits at one instant are rejected")
    void permitsAboveTheCapacityAreRejected() {
        List<Hold> three = List.of(permits(0, 1, 2, 0, 10), permits(1, 2, 1, 5, 20), permits(2, 3, 2, 10, 30));
        ClaimHistory.Report ok = ClaimHistory.check(three, Map.of(), 3);
        assertThat(ok.passes()).isTrue();
        assertThat(ok.maxWeight()).isEqualTo(3);

        List<Hold> four = List.of(permits(0, 1, 2, 0, 10), permits(1, 2, 1, 5, 20), permits(2, 3, 1, 8, 30));
        ClaimHistory.Report over = ClaimHistory.check(four, Map.of(), 3);
        assertThat(over.capacityViolations()).hasSize(1).first().asString().contains("4 > 3");
        assertThat(over.passes()).isFalse();
        assertThat(ClaimHistory.check(four, Map.of(), 4).passes()).isTrue();
    }

    @Test
    @DisplayName("a hold whose token is not above an earlier-ended write hold's is rejected; reads do not fence")
    void tokenOutOfOrderIsRejected() {
        ClaimHistory.Report readBelowWrite =
                ClaimHistory.check(List.of(write(0, 10, 0, 5), read(1, 9, 6, 8)), Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(readBelowWrite.fencingViolations()).hasSize(1);
        ClaimHistory.Report writeBelowWrite =
                ClaimHistory.check(List.of(write(0, 10, 0, 5), write(1, 9, 6, 8)), Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(writeBelowWrite.fencingViolations()).hasSize(1);
        ClaimHistory.Report readBelowRead =
                ClaimHistory.check(List.of(read(0, 10, 0, 5), read(1, 9, 6, 8)), Map.of(), ClaimHistory.UNBOUNDED);
        assertThat(readBelowRead.passes())
                .as("the contract orders tokens after write holds only")
                .isTrue();
        assertThat(ClaimHistory.check(List.of(read(0, 1, 0, 5), read(1, 1, 6, 8)), Map.of(), 0)
                        .duplicateTokens())
                .containsExactly(1L);
    }

    @Test
    @DisplayName("a lost hold may be overlapped once its holder was told, or when it is fenced by a greater token")
    void lostHoldsMayBeOverlapped() {
        Hold lostAtRelease = new Hold(0, 10, true, 1, 0, 20 * MS, true, Outcome.LOST_AT_RELEASE);
        Hold invalidAtEnd = new Hold(1, 11, false, 2, 0, 20 * MS, false, Outcome.LOST_AT_RELEASE);
        Hold toldEarly = new Hold(2, 12, true, 1, 30 * MS, 50 * MS, true, Outcome.RELEASED);
        Hold after = write(0, 13, 5, 15);
        Hold afterTold = write(1, 14, 40, 45);
        ClaimHistory.Report r = ClaimHistory.check(
                List.of(lostAtRelease, invalidAtEnd, toldEarly, after, afterTold), Map.of(12L, 35 * MS), 3);
        assertThat(r.passes()).as(r.violations().toString()).isTrue();
        assertThat(r.lostHeard()).isEqualTo(1);
        assertThat(r.lostAtRelease()).isEqualTo(2);
        assertThat(r.overlapsWithLost())
                .as("the overlaps with a lost hold, counted")
                .isEqualTo(3);
        // The same overlap with a clean first hold is a violation.
        assertThat(ClaimHistory.check(List.of(write(2, 12, 30, 50), afterTold), Map.of(), 0)
                        .exclusionViolations())
                .hasSize(1);
        assertThatThrownBy(() -> ClaimHistory.check(List.of(), Map.of(), -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity");
    }
}
