package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked name templates")
class NameTemplateTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @RegisterExtension
    final Lockkit.PerTest cdi = Lockkit.perTest(Templates.class, ClassLevelLocked.class);

    @Inject
    Templates templates;

    @Inject
    ClassLevelLocked classLevel;

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("{name} is the parameter of that name")
    void namedPlaceholderTakesTheParameter() {
        assertThat(templates.byName(42, "ignored")).isEqualTo("order:42");
    }

    @Test
    @DisplayName("{0} and {1} are parameters by position")
    void positionalPlaceholdersTakeParametersByPosition() {
        assertThat(templates.byPosition("eu", 7)).isEqualTo("region:eu:7");
    }

    @Test
    @DisplayName("property paths go through getters, is-getters and record components")
    void propertyPathsReadGettersAndRecordComponents() {
        Templates.Order order = new Templates.Order(new Templates.Customer("c-9"), 5, true);
        assertThat(templates.byPath(order)).isEqualTo("customer:c-9/qty:5/express:true");
        assertThat(templates.byPathWithIs(order)).isEqualTo("customer:c-9/qty:5/express:true");
        assertThat(templates.byPositionalPath(order)).isEqualTo("c-9");
    }

    @Test
    @DisplayName("literal text stays around placeholders, {{ and }} are literal braces")
    void literalTextAndEscapedBraces() {
        assertThat(templates.literalText(3, "acme")).isEqualTo("{literal} job 3 of {acme}");
    }

    @Test
    @DisplayName("{period:PT1M} is the minute boundary nearest to the call, as an ISO-8601 instant")
    void periodPlaceholderNamesTheNearestBoundary() {
        long before = System.currentTimeMillis();
        String name = templates.perMinute();
        long after = System.currentTimeMillis();
        assertThat(name).isIn(nearestMinute(before), nearestMinute(after));
    }

    private static String nearestMinute(long epochMillis) {
        return "tick:" + java.time.Instant.ofEpochMilli(Math.floorDiv(epochMillis + 30_000, 60_000) * 60_000);
    }

    @Test
    @DisplayName(
            "{period:PT1S:firing.scheduledFireTime} names the period of the time the call was meant for, however late it runs")
    void periodOfAnArgumentNamesThePeriodOfThatTime() {
        Instant boundary = Instant.parse("2026-11-26T07:30:02Z");
        assertThat(templates.perScheduledSecond(new Templates.Firing(boundary)))
                .as("a call meant for a boundary, run now, years later")
                .isEqualTo("report:2026-11-26T07:30:02Z");
        assertThat(templates.perScheduledSecond(new Templates.Firing(boundary.plusMillis(3))))
                .as("a first firing a little after the boundary")
                .isEqualTo("report:2026-11-26T07:30:02Z");
        assertThat(templates.perScheduledSecond(new Templates.Firing(boundary.plusSeconds(1))))
                .isEqualTo("report:2026-11-26T07:30:03Z");
        assertThat(templates.perOffsetAndZonedTime(
                        boundary.plusMillis(999).atOffset(ZoneOffset.ofHours(-5)),
                        boundary.atZone(ZoneId.of("Europe/Paris")).plusMinutes(10)))
                .as("an OffsetDateTime and a ZonedDateTime, by position: the instant counts, not the zone")
                .isEqualTo("report:2026-11-26T07:30:02Z/2026-11-26T08:00:00Z");
        assertThatThrownBy(() -> templates.perScheduledSecond(new Templates.Firing(null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{period:PT1S:firing.scheduledFireTime}")
                .hasMessageContaining("is null");
    }

    @Test
    @DisplayName("without a template the lock is named after the declaring class and method")
    void defaultNameIsClassAndMethod() {
        assertThat(templates.unnamed()).isEqualTo(Templates.class.getName() + ".unnamed");
    }

    @Test
    @DisplayName("@Locked on a type locks each method under its own name; a method's @Locked overrides it")
    void typeLevelLockedNamesEachMethod() {
        assertThat(classLevel.first()).isEqualTo(ClassLevelLocked.class.getName() + ".first");
        assertThat(classLevel.second()).isEqualTo(ClassLevelLocked.class.getName() + ".second");
        assertThat(classLevel.overridden(8)).isEqualTo("override:8");
    }

    @Test
    @DisplayName("a null value fails the call, naming the method and the placeholder")
    void nullValueFailsTheCall() {
        Templates.Order noCustomer = new Templates.Order(null, 1, false);
        assertThatThrownBy(() -> templates.byPath(noCustomer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Templates.byPath(Order)")
                .hasMessageContaining("{order.customer.id}");
        assertThatThrownBy(() -> templates.byPosition(null, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{0}");
    }
}
