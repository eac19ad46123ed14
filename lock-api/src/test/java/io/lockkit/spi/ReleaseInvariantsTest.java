package io.lockkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.Release.Outcome;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a provider may answer to a release, as {@link Release}'s constructors check it. */
class ReleaseInvariantsTest {

    @Test
    @DisplayName("a direct grant's token without a grantee is refused, naming the grantee")
    void grantTokenWithoutAGranteeIsRefused() {
        assertThatThrownBy(() -> new Release(Outcome.RELEASED, null, 5, 7))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantee");
    }

    @Test
    @DisplayName("a grant token without a wait id (new Release(RELEASED, null, 5, 0)) is refused, naming both")
    void grantTokenWithoutAWaitIdIsRefused() {
        assertThatThrownBy(() -> new Release(Outcome.RELEASED, null, 5, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grantToken")
                .hasMessageContaining("grantWaitId");
        assertThatThrownBy(() -> new Release(Outcome.RELEASED, "c:h1", 5, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grantWaitId");
    }

    @Test
    @DisplayName("a grant wait id without a token is refused")
    void grantWaitIdWithoutATokenIsRefused() {
        assertThatThrownBy(() -> new Release(Outcome.RELEASED, "c:h1", 0, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grantToken");
    }

    @Test
    @DisplayName("negative grant tokens and wait ids are refused, naming each")
    void negativeGrantNumbersAreRefused() {
        assertThatThrownBy(() -> new Release(Outcome.RELEASED, "c:h1", -1, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantToken");
        assertThatThrownBy(() -> new Release(Outcome.RELEASED, "c:h1", 4, -2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantWaitId");
    }

    @ParameterizedTest
    @EnumSource(
            value = Outcome.class,
            names = {"STILL_HELD", "NOT_HELD"})
    @DisplayName("a grantee comes only with a release that freed the lock")
    void granteeOfAHoldNotFreedIsRefused(Outcome outcome) {
        assertThatThrownBy(() -> new Release(outcome, "c:h1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantee")
                .hasMessageContaining(outcome.name());
        assertThatThrownBy(() -> new Release(outcome, "c:h1", 5, 7))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantee");
    }

    @Test
    @DisplayName("an empty grantee is refused")
    void emptyGranteeIsRefused() {
        assertThatThrownBy(() -> new Release(Outcome.RELEASED, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantee");
    }

    @Test
    @DisplayName("a release without an outcome is refused")
    void missingOutcomeIsRefused() {
        assertThatThrownBy(() -> new Release(null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("outcome");
    }

    @Test
    @DisplayName("the three plain answers, a hand-over and a direct grant are accepted as given")
    void validAnswersAreKept() {
        assertThat(Release.RELEASED).isEqualTo(new Release(Outcome.RELEASED, null, 0, 0));
        assertThat(Release.STILL_HELD.outcome()).isEqualTo(Outcome.STILL_HELD);
        assertThat(Release.NOT_HELD.outcome()).isEqualTo(Outcome.NOT_HELD);
        Release handOver = new Release(Outcome.RELEASED, "c:t1");
        assertThat(handOver.grantee()).isEqualTo("c:t1");
        assertThat(handOver.granted()).isFalse();
        Release grant = new Release(Outcome.RELEASED, "c:t1", 9, 4);
        assertThat(grant.granted()).isTrue();
        assertThat(grant).isEqualTo(Release.grantedTo("c:t1", 9, 4));
    }

    @Test
    @DisplayName("grantedTo refuses a missing grantee and non-positive tokens and wait ids, naming each")
    void grantedToRefusesIncompleteGrants() {
        assertThatThrownBy(() -> Release.grantedTo(null, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantee");
        assertThatThrownBy(() -> Release.grantedTo("", 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("grantee");
        assertThatThrownBy(() -> Release.grantedTo("c:t1", 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("token");
        assertThatThrownBy(() -> Release.grantedTo("c:t1", 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("waitId");
        assertThatCode(() -> Release.grantedTo("c:t1", 1, 1)).doesNotThrowAnyException();
    }
}
