package io.lockkit.cdi.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the {period:…} placeholder of @Locked name templates")
class PeriodPlaceholderTest {

    private static final long PERIOD = 2_000;
    /** A boundary of a 2 s period: what every instance's calendar timer means to fire at. */
    private static final long BOUNDARY = Instant.parse("2026-11-26T07:30:02Z").toEpochMilli();

    @Test
    @DisplayName("names the period by the nearest boundary, from half a period early to half a period late")
    void namesThePeriodByTheNearestBoundary() {
        NameTemplate.Period period = parsePeriod("tick:{period:PT2S}");
        String expected = "2026-11-26T07:30:02Z";
        for (long offset : new long[] {-999, -250, -3, 0, 3, 250, 999}) {
            assertThat(period.name(BOUNDARY + offset))
                    .as("fired %d ms off the boundary", offset)
                    .isEqualTo(expected);
        }
        assertThat(period.name(BOUNDARY + 1_000)).isEqualTo("2026-11-26T07:30:04Z");
        assertThat(period.name(BOUNDARY - 1_001)).isEqualTo("2026-11-26T07:30:00Z");
    }

    /**
     * Two instances' timers of one period, one fired 3 ms early (or on a clock 3 ms ahead), the other
     * 250 ms late: the period's start computed from each firing time by truncation differs, the
     * nearest boundary does not.
     */
    @Test
    @DisplayName(
            "instances that fire a little early and a little late agree, where truncating the firing time does not")
    void earlyAndLateFiringsAgreeWhereTruncationDoesNot() {
        long early = BOUNDARY - 3;
        long late = BOUNDARY + 250;
        assertThat(periodStartByTruncation(early))
                .as("the early firing's period, truncated")
                .isNotEqualTo(periodStartByTruncation(late));
        NameTemplate.Period period = parsePeriod("tick:{period:PT2S}");
        assertThat(period.name(early)).isEqualTo(period.name(late));
    }

    /** The start of the period {@code now} falls in, by truncation. */
    private static long periodStartByTruncation(long now) {
        return Math.floorDiv(now, PERIOD) * PERIOD;
    }

    @Test
    @DisplayName("boundaries are multiples of the period since the epoch, in UTC, for minutes, hours and days too")
    void boundariesAreMultiplesOfThePeriodSinceTheEpoch() {
        long t = Instant.parse("2026-11-26T13:44:31.500Z").toEpochMilli();
        assertThat(parsePeriod("{period:PT1M}").name(t)).isEqualTo("2026-11-26T13:45:00Z");
        assertThat(parsePeriod("{period:PT1H}").name(t)).isEqualTo("2026-11-26T14:00:00Z");
        assertThat(parsePeriod("{period:P1D}").name(t)).isEqualTo("2026-11-27T00:00:00Z");
        assertThat(parsePeriod("{period:PT0.25S}").name(t)).isEqualTo("2026-11-26T13:44:31.500Z");
        assertThat(parsePeriod("{period:PT1M}")
                        .name(Instant.parse("1969-12-31T23:59:40Z").toEpochMilli()))
                .as("before the epoch")
                .isEqualTo("1970-01-01T00:00:00Z");
    }

    @Test
    @DisplayName("literal text around it stays, and a parameter named period is still a parameter")
    void literalsAroundItAndAParameterNamedPeriod() {
        NameTemplate template = NameTemplate.parse("report:{period:PT1H}:{period}");
        assertThat(template.parts()).hasSize(4);
        assertThat(template.parts().get(0)).isEqualTo(new NameTemplate.Literal("report:"));
        assertThat(template.parts().get(1)).isInstanceOf(NameTemplate.Period.class);
        assertThat(template.parts().get(3))
                .isEqualTo(new NameTemplate.Placeholder("{period}", -1, "period", List.of()));
        assertThat(template.constant()).isFalse();
        assertThat(((NameTemplate.Period) template.parts().get(1)).length()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    @DisplayName("a period that is not an ISO-8601 duration, not positive or not whole milliseconds is refused")
    void malformedPeriodsAreRefused() {
        assertThatThrownBy(() -> NameTemplate.parse("tick:{period:2s}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("'{period:2s}' at index 5")
                .hasMessageContaining("not an ISO-8601 duration such as PT2S");
        assertThatThrownBy(() -> NameTemplate.parse("{period:}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("not an ISO-8601 duration");
        assertThatThrownBy(() -> NameTemplate.parse("{period:PT0S}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("must be positive");
        assertThatThrownBy(() -> NameTemplate.parse("{period:-PT2S}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("must be positive");
        assertThatThrownBy(() -> NameTemplate.parse("{period:PT0.0005S}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("whole milliseconds");
    }

    @Test
    @DisplayName("{period:PT1S:execution.scheduledFireTime} reads the time from an argument's property path")
    void periodOfAnArgumentParsesItsSource() {
        NameTemplate.Period period = parsePeriod("report:{period:PT1S:execution.scheduledFireTime}");
        assertThat(period.length()).isEqualTo(Duration.ofSeconds(1));
        assertThat(period.source())
                .isEqualTo(new NameTemplate.Placeholder(
                        "{period:PT1S:execution.scheduledFireTime}", -1, "execution", List.of("scheduledFireTime")));
        assertThat(parsePeriod("{period:PT2S:0}").source())
                .isEqualTo(new NameTemplate.Placeholder("{period:PT2S:0}", 0, null, List.of()));
        assertThat(parsePeriod("{period:PT2S}").source()).isNull();
        assertThatThrownBy(() -> NameTemplate.parse("{period:PT1S:}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("nothing after the period's ':'");
        assertThatThrownBy(() -> NameTemplate.parse("{period:PT1S:execution.}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("'' is not a property name");
        assertThatThrownBy(() -> NameTemplate.parse("{period:1s:execution}"))
                .isInstanceOf(DeclarationException.class)
                .hasMessageContaining("'1s' is not an ISO-8601 duration");
    }

    private static NameTemplate.Period parsePeriod(String template) {
        return NameTemplate.parse(template).parts().stream()
                .filter(NameTemplate.Period.class::isInstance)
                .map(NameTemplate.Period.class::cast)
                .findFirst()
                .orElseThrow();
    }
}
