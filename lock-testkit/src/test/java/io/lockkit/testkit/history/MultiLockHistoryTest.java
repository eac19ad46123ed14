package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.history.HoldHistory.Outcome;
import io.lockkit.testkit.history.MultiLockHistory.Grant;
import io.lockkit.testkit.history.MultiLockHistory.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The multi-lock checker on hand-made histories: what it rejects, and what it allows. */
class MultiLockHistoryTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A clean grant of {@code names} by {@code client}, member i with token {@code tokens[i]}. */
    private static Grant grant(int client, long from, long to, List<String> names, long... tokens) {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            members.add(new Member(names.get(i), tokens[i], true, Outcome.RELEASED));
        }
        return new Grant(client, names, from * MS, to * MS, members);
    }

    @Test
    @DisplayName("grants of disjoint names may overlap; two valid holds of one name overlapping are rejected")
    void overlappingHoldsOfOneNameAreRejected() {
        Grant ab = grant(0, 0, 10, List.of("a", "b"), 1, 1);
        Grant cd = grant(1, 5, 15, List.of("d", "c"), 1, 1);
        Grant ba = grant(2, 10, 20, List.of("b", "a"), 2, 2); // opposite order, right after ab
        MultiLockHistory.Report ok = MultiLockHistory.check(List.of(ab, cd, ba), Map.of());
        assertThat(ok.passes()).as(ok.violations().toString()).isTrue();
        assertThat(ok.grants()).isEqualTo(3);
        assertThat(ok.members().holds()).isEqualTo(6);
        assertThat(ok.byName()).containsOnlyKeys("a", "b", "c", "d");

        Grant cb = grant(1, 9, 20, List.of("c", "b"), 2, 2); // b taken while ab still holds it
        MultiLockHistory.Report overlap = MultiLockHistory.check(List.of(ab, cb), Map.of());
        assertThat(overlap.members().exclusionViolations())
                .singleElement()
                .asString()
                .startsWith("b: ");
        assertThat(overlap.byName().get("c").passes()).isTrue();
        assertThat(overlap.passes()).isFalse();
        assertThat(overlap.violations()).singleElement().asString().contains("overlapping");
    }

    @Test
    @DisplayName("a multi-lock granted with a member missing, or with a member it did not ask for, is rejected")
    void grantWithAMemberMissingIsRejected() {
        Grant half = new Grant(
                0,
                List.of("c", "a", "b"),
                0,
                10 * MS,
                List.of(new Member("a", 1, true, Outcome.RELEASED), new Member("c", 1, true, Outcome.RELEASED)));
        MultiLockHistory.Report r = MultiLockHistory.check(List.of(half), Map.of());
        assertThat(r.members().passes()).as("the members it has are fine").isTrue();
        assertThat(r.incompleteGrants()).singleElement().asString().contains("missing [b]");
        assertThat(r.passes()).isFalse();
        assertThat(r.violations()).singleElement().asString().contains("without all it asked for");

        Grant extra = new Grant(
                1,
                List.of("a"),
                20 * MS,
                30 * MS,
                List.of(new Member("a", 2, true, Outcome.RELEASED), new Member("d", 1, true, Outcome.RELEASED)));
        assertThat(MultiLockHistory.check(List.of(extra), Map.of()).incompleteGrants())
                .singleElement()
                .asString()
                .contains("not asked for or twice [d]");
    }

    @Test
    @DisplayName("a name's tokens must follow its grants in time; tokens of different names are independent")
    void tokensOutOfGrantOrderAreRejected() {
        Grant first = grant(0, 0, 10, List.of("a", "b"), 5, 1);
        Grant backwards = grant(1, 20, 30, List.of("a", "c"), 4, 9);
        MultiLockHistory.Report r = MultiLockHistory.check(List.of(first, backwards), Map.of());
        assertThat(r.members().fencingViolations()).singleElement().asString().startsWith("a: ");
        assertThat(r.passes()).isFalse();

        Grant repeated = grant(1, 20, 30, List.of("a", "c"), 5, 9);
        assertThat(MultiLockHistory.check(List.of(first, repeated), Map.of())
                        .members()
                        .duplicateTokens())
                .containsExactly(5L);
        Grant sameTokensElsewhere = grant(1, 20, 30, List.of("a", "c"), 6, 5);
        assertThat(MultiLockHistory.check(List.of(first, sameTokensElsewhere), Map.of())
                        .passes())
                .as("token 5 of a and token 5 of c are different holds")
                .isTrue();
    }

    @Test
    @DisplayName("a member whose loss was heard may be overlapped after it; a loss of another name excuses nothing")
    void lostMemberMayBeOverlappedOnceTold() {
        Grant ab = grant(0, 0, 20, List.of("a", "b"), 7, 3);
        Grant b = grant(1, 10, 15, List.of("b", "c"), 4, 1);
        MultiLockHistory.Report told = MultiLockHistory.check(List.of(ab, b), Map.of("b", Map.of(3L, 5 * MS)));
        assertThat(told.passes()).as(told.violations().toString()).isTrue();
        assertThat(told.members().lostHeard()).isEqualTo(1);

        MultiLockHistory.Report otherName =
                MultiLockHistory.check(List.of(ab, b), Map.of("a", Map.of(3L, 5 * MS), "c", Map.of(3L, 5 * MS)));
        assertThat(otherName.members().exclusionViolations())
                .as("the loss of token 3 of another name is not b's")
                .singleElement()
                .asString()
                .startsWith("b: ");
    }
}
