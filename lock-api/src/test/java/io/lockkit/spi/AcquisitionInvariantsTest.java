package io.lockkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What a provider may answer to an attempt, as {@link Acquisition}'s constructor and factories check it. */
class AcquisitionInvariantsTest {

    @Test
    @DisplayName("acquired carries its token and no retry hint")
    void acquiredCarriesItsToken() {
        Acquisition a = Acquisition.acquired(42);
        assertThat(a.isAcquired()).isTrue();
        assertThat(a.fencingToken()).isEqualTo(42);
        assertThat(a.retryAfter()).isZero();
        assertThat(a)
                .isEqualTo(new Acquisition(true, 42, Duration.ZERO))
                .hasToString("Acquisition[acquired, token=42]");
    }

    @Test
    @DisplayName("busy carries its hint and no token; a negative hint counts as zero")
    void busyCarriesItsHint() {
        Acquisition b = Acquisition.busy(Duration.ofMillis(250));
        assertThat(b.isAcquired()).isFalse();
        assertThat(b.fencingToken()).isZero();
        assertThat(b.retryAfter()).isEqualTo(Duration.ofMillis(250));
        assertThat(Acquisition.busy(Duration.ofMillis(-3)).retryAfter()).isZero();
    }

    @Test
    @DisplayName("a missing hint is refused, naming retryAfter")
    void missingHintIsRefused() {
        assertThatThrownBy(() -> Acquisition.busy(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("retryAfter");
        assertThatThrownBy(() -> new Acquisition(false, 0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("retryAfter");
    }

    @Test
    @DisplayName(
            "the canonical constructor refuses a negative hint, a hint with an acquisition and a token with a busy answer")
    void inconsistentAnswersAreRefused() {
        assertThatThrownBy(() -> new Acquisition(false, 0, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("retryAfter");
        assertThatThrownBy(() -> new Acquisition(true, 3, Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("retryAfter");
        assertThatThrownBy(() -> new Acquisition(false, 3, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("fencingToken");
    }
}
