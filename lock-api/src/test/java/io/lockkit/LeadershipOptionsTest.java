package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link LeadershipOptions}: defaults, each setter's checks, and the checks of the durations together. */
class LeadershipOptionsTest {

    @Test
    @DisplayName(
            "defaults resolve against the factory's watchdog lease: interval a third, margin a tenth, rejoin one lease")
    void defaultsResolveAgainstTheFactory() {
        LeadershipOptions.Resolved r = LeadershipOptions.DEFAULTS.resolve(
                LockOptions.builder().watchdogLease(Duration.ofSeconds(9)).build());
        assertThat(r.lease()).isEqualTo(Duration.ofSeconds(9));
        assertThat(r.renewalInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(r.margin()).isEqualTo(Duration.ofMillis(900));
        assertThat(r.rejoinDelay()).isEqualTo(Duration.ofSeconds(9));
        assertThat(r.maxRetryDelay()).isEqualTo(LeadershipOptions.DEFAULT_MAX_RETRY_DELAY);
        assertThat(LeadershipOptions.DEFAULTS.resolve(LockOptions.DEFAULTS).lease())
                .isEqualTo(LockOptions.DEFAULT_WATCHDOG_LEASE);
        assertThat(LeadershipOptions.DEFAULTS.lease()).isEmpty();
        assertThat(LeadershipOptions.DEFAULTS.toString()).contains("(factory's)");
    }

    @Test
    @DisplayName("set values are kept and resolved as set")
    void setValuesAreKept() {
        LeadershipOptions o = LeadershipOptions.builder()
                .lease(Duration.ofSeconds(2))
                .renewalInterval(Duration.ofMillis(500))
                .revocationMargin(Duration.ofMillis(250))
                .rejoinDelay(Duration.ZERO)
                .maxRetryDelay(Duration.ofMillis(300))
                .onElected(t -> {})
                .onRevoked((t, r) -> {})
                .build();
        assertThat(o.lease()).contains(Duration.ofSeconds(2));
        assertThat(o.renewalInterval()).contains(Duration.ofMillis(500));
        assertThat(o.revocationMargin()).contains(Duration.ofMillis(250));
        assertThat(o.rejoinDelay()).contains(Duration.ZERO);
        assertThat(o.maxRetryDelay()).isEqualTo(Duration.ofMillis(300));
        LeadershipOptions.Resolved r = o.resolve(LockOptions.DEFAULTS);
        assertThat(r.lease()).isEqualTo(Duration.ofSeconds(2));
        assertThat(r.elected()).hasSize(1);
        assertThat(r.revoked()).hasSize(1);
        assertThat(o.toString()).contains("listeners=2");
    }

    @Test
    @DisplayName("each setter refuses null, too small and too large values, naming its argument")
    @SuppressWarnings("NullAway") // passes null on purpose
    void settersCheckTheirArgument() {
        LeadershipOptions.Builder b = LeadershipOptions.builder();
        assertThatThrownBy(() -> b.lease(null)).hasMessageContaining("lease");
        assertThatThrownBy(() -> b.lease(Duration.ofMillis(29)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease must be at least");
        assertThatThrownBy(() -> b.lease(Duration.ofDays(40_000))).hasMessageContaining("lease must be at most");
        assertThatThrownBy(() -> b.renewalInterval(Duration.ZERO)).hasMessageContaining("renewalInterval");
        assertThatThrownBy(() -> b.revocationMargin(Duration.ofMillis(-1))).hasMessageContaining("revocationMargin");
        assertThatThrownBy(() -> b.rejoinDelay(null)).hasMessageContaining("rejoinDelay");
        assertThatThrownBy(() -> b.maxRetryDelay(Duration.ZERO)).hasMessageContaining("maxRetryDelay");
        assertThatThrownBy(() -> b.onElected(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("onElected");
        assertThatThrownBy(() -> b.onRevoked(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("onRevoked");
        b.revocationMargin(Duration.ZERO).rejoinDelay(Duration.ZERO).build();
    }

    @Test
    @DisplayName("durations that cannot work together are refused at build, or against the factory's lease")
    void durationsMustFitTogether() {
        assertThatThrownBy(() -> LeadershipOptions.builder()
                        .lease(Duration.ofSeconds(1))
                        .renewalInterval(Duration.ofSeconds(1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewalInterval");
        assertThatThrownBy(() -> LeadershipOptions.builder()
                        .lease(Duration.ofSeconds(3))
                        .revocationMargin(Duration.ofSeconds(2))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revocationMargin");
        LeadershipOptions late = LeadershipOptions.builder()
                .renewalInterval(Duration.ofSeconds(5))
                .build();
        assertThatThrownBy(() -> late.resolve(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(3))
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewalInterval");
        assertThatThrownBy(() -> LeadershipOptions.DEFAULTS.resolve(LockOptions.builder()
                        .watchdogLease(Duration.ofMillis(20))
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LeadershipOptions.lease");
    }
}
