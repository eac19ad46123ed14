package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LockOptionsTest {

    /** Each duration setter with the argument name its errors must carry. */
    static Stream<Arguments> durationSetters() {
        return Stream.of(
                setter("wait", LockOptions.Builder::waitAtMost),
                setter("lease", LockOptions.Builder::lease),
                setter("watchdogLease", LockOptions.Builder::watchdogLease),
                setter("renewalInterval", LockOptions.Builder::renewalInterval));
    }

    private static Arguments setter(String argument, BiConsumer<LockOptions.Builder, Duration> set) {
        return arguments(argument, Named.of(argument, set));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationSetters")
    void nullDurationIsRejectedNamingTheArgument(String argument, BiConsumer<LockOptions.Builder, Duration> set) {
        assertThatThrownBy(() -> set.accept(LockOptions.builder(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(argument + " ");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationSetters")
    void negativeDurationIsRejectedNamingTheArgument(String argument, BiConsumer<LockOptions.Builder, Duration> set) {
        assertThatThrownBy(() -> set.accept(LockOptions.builder(), Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(argument + " ")
                .hasMessageContaining("PT-0.001S");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationSetters")
    void overflowingDurationIsRejectedNamingTheArgument(
            String argument, BiConsumer<LockOptions.Builder, Duration> set) {
        assertThatThrownBy(() -> set.accept(LockOptions.builder(), Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(argument + " must be at most");
        assertThatThrownBy(() -> set.accept(LockOptions.builder(), LockOptions.MAX_DURATION.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(argument + " must be at most");
        assertThatCode(() -> set.accept(LockOptions.builder(), LockOptions.MAX_DURATION))
                .doesNotThrowAnyException();
    }

    @Test
    void zeroLeaseIsRejectedButAZeroWaitMeansTryOnce() {
        assertThatThrownBy(() -> LockOptions.builder().lease(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("lease ");
        assertThatThrownBy(() -> LockOptions.builder().watchdogLease(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("watchdogLease ");
        assertThatThrownBy(() -> LockOptions.builder().renewalInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("renewalInterval ");

        assertThat(LockOptions.waitAtMost(Duration.ZERO)).isEqualTo(LockOptions.noWait());
    }

    @Test
    void watchdogLeaseMustLeaveRoomForRenewals() {
        assertThatThrownBy(() -> LockOptions.builder().watchdogLease(Duration.ofMillis(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("watchdogLease must be at least");
        assertThat(LockOptions.builder()
                        .watchdogLease(Duration.ofMillis(3))
                        .build()
                        .renewalInterval())
                .contains(Duration.ofMillis(1));
    }

    @Test
    void renewalIntervalMustBeShorterThanWatchdogLease() {
        LockOptions.Builder equal =
                LockOptions.builder().watchdogLease(Duration.ofSeconds(3)).renewalInterval(Duration.ofSeconds(3));
        assertThatThrownBy(equal::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("renewalInterval (PT3S) must be shorter than watchdogLease (PT3S)");

        // Without a watchdog lease of its own, the interval is checked against the 30 s default.
        LockOptions.Builder longerThanDefault = LockOptions.builder().renewalInterval(Duration.ofSeconds(31));
        assertThatThrownBy(longerThanDefault::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("renewalInterval ");
    }

    @Test
    void defaultsWaitForeverUnderTheWatchdog() {
        LockOptions defaults = LockOptions.DEFAULTS;

        assertThat(defaults.waitTime()).isEmpty();
        assertThat(defaults.lease()).isEmpty();
        assertThat(defaults.watchdogLease()).as("the factory's lease applies").isEmpty();
        assertThat(defaults.renewalInterval()).isEmpty();
        assertThat(defaults).isEqualTo(LockOptions.builder().build());
        assertThat(LockOptions.DEFAULT_WATCHDOG_LEASE).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.effectiveWatchdogLease(defaults)).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.effectiveRenewalInterval(defaults)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void noWaitTriesOnceAndWaitAtMostBoundsTheWait() {
        assertThat(LockOptions.noWait().waitTime()).contains(Duration.ZERO);
        assertThat(LockOptions.noWait().lease()).isEmpty();

        LockOptions bounded = LockOptions.waitAtMost(Duration.ofSeconds(5));
        assertThat(bounded.waitTime()).contains(Duration.ofSeconds(5));
        assertThat(bounded.lease()).isEmpty();
        assertThat(bounded.watchdogLease()).isEmpty();
    }

    @Test
    void renewalIntervalIsAThirdOfTheWatchdogLeaseUnlessSet() {
        LockOptions derived =
                LockOptions.builder().watchdogLease(Duration.ofSeconds(9)).build();
        LockOptions explicit = LockOptions.builder()
                .watchdogLease(Duration.ofSeconds(9))
                .renewalInterval(Duration.ofSeconds(1))
                .build();

        assertThat(derived.renewalInterval()).contains(Duration.ofSeconds(3));
        assertThat(derived.effectiveRenewalInterval(LockOptions.DEFAULTS)).isEqualTo(Duration.ofSeconds(3));
        assertThat(explicit.renewalInterval()).contains(Duration.ofSeconds(1));
        assertThat(explicit.effectiveRenewalInterval(LockOptions.DEFAULTS)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void optionsWithoutAWatchdogLeaseInheritTheDefaultsLeaseAndInterval() {
        LockOptions factoryDefaults =
                LockOptions.builder().watchdogLease(Duration.ofSeconds(6)).build();
        LockOptions tuned = LockOptions.builder()
                .watchdogLease(Duration.ofSeconds(12))
                .renewalInterval(Duration.ofSeconds(2))
                .build();

        assertThat(LockOptions.noWait().effectiveWatchdogLease(factoryDefaults)).isEqualTo(Duration.ofSeconds(6));
        assertThat(LockOptions.noWait().effectiveRenewalInterval(factoryDefaults))
                .isEqualTo(Duration.ofSeconds(2));
        assertThat(LockOptions.noWait().effectiveRenewalInterval(tuned)).isEqualTo(Duration.ofSeconds(2));
        // Options with a lease of their own ignore the defaults' interval.
        LockOptions own =
                LockOptions.builder().watchdogLease(Duration.ofSeconds(3)).build();
        assertThat(own.effectiveWatchdogLease(tuned)).isEqualTo(Duration.ofSeconds(3));
        assertThat(own.effectiveRenewalInterval(tuned)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void toBuilderStartsFromTheOptionsAndLeavesThemUnchanged() {
        LockOptions original = LockOptions.builder()
                .waitAtMost(Duration.ofSeconds(5))
                .watchdogLease(Duration.ofSeconds(9))
                .renewalInterval(Duration.ofSeconds(2))
                .build();

        assertThat(original.toBuilder().build()).isEqualTo(original);

        LockOptions changed =
                original.toBuilder().waitForever().lease(Duration.ofSeconds(1)).build();
        assertThat(changed.waitTime()).isEmpty();
        assertThat(changed.lease()).contains(Duration.ofSeconds(1));
        assertThat(changed.watchdogLease()).contains(Duration.ofSeconds(9));
        assertThat(original.waitTime()).contains(Duration.ofSeconds(5));
        assertThat(original.lease()).isEmpty();

        assertThat(changed.toBuilder().watchdog().build().lease()).isEmpty();
    }

    @Test
    void equalOptionsHaveEqualHashCodesAndEveryFieldCounts() {
        LockOptions a = LockOptions.builder()
                .waitAtMost(Duration.ofSeconds(1))
                .lease(Duration.ofSeconds(2))
                .build();
        LockOptions b = LockOptions.builder()
                .lease(Duration.ofSeconds(2))
                .waitAtMost(Duration.ofSeconds(1))
                .build();

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(null).isNotEqualTo("options");
        assertThat(a)
                .isNotEqualTo(a.toBuilder().waitAtMost(Duration.ofSeconds(3)).build());
        assertThat(a).isNotEqualTo(a.toBuilder().lease(Duration.ofSeconds(3)).build());
        assertThat(a)
                .isNotEqualTo(a.toBuilder().watchdogLease(Duration.ofSeconds(3)).build());
        assertThat(a)
                .isNotEqualTo(
                        a.toBuilder().renewalInterval(Duration.ofSeconds(1)).build());
        assertThat(a.toString()).contains("PT1S", "PT2S");
    }

    @Test
    void durationsAreIso8601OrANumberWithAUnitAndABareNumberIsSeconds() {
        assertThat(LockOptions.parseDuration("PT2S")).isEqualTo(Duration.ofSeconds(2));
        assertThat(LockOptions.parseDuration("pt1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(LockOptions.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(LockOptions.parseDuration("3s")).isEqualTo(Duration.ofSeconds(3));
        assertThat(LockOptions.parseDuration(" 5 M ")).isEqualTo(Duration.ofMinutes(5));
        assertThat(LockOptions.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(LockOptions.parseDuration("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(LockOptions.parseDuration("30")).isEqualTo(Duration.ofSeconds(30));
        assertThat(LockOptions.parseDuration("0")).isZero();
        assertThat(LockOptions.parseDuration("-PT1S")).isEqualTo(Duration.ofSeconds(-1));
        for (String bad : new String[] {
            "", " ", "2 fortnights", "1.5s", "-5s", "s", "PT", "1234567890123456789", "106751991167301d"
        }) {
            assertThatThrownBy(() -> LockOptions.parseDuration(bad))
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("duration '" + bad + "' is not ISO-8601");
        }
        assertThatThrownBy(() -> LockOptions.parseDuration(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("duration must not be null");
    }
}
