package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership.RevocationReason;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.inject.se.SeContainer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("leaderships declared in configuration fire LeadershipGranted and LeadershipRevoked")
class LeadershipEventsTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Duration SOON = Duration.ofSeconds(10);

    @BeforeEach
    void clearHistory() {
        Leaders.HISTORY.clear();
    }

    @AfterEach
    void clearConfig() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName(
            "of two instances one is granted; closing it revokes its term (CLOSED) there, then the other is granted")
    void oneOfTwoInstancesLeadsAndHandsOverAtShutdown(RedisServer redis) {
        Lockkit.useRedis(redis, "lockkit.leadership.reports.lease", "600ms");
        SeContainer a = Lockkit.start("leader-a", Leaders.Witness.class);
        SeContainer b = Lockkit.start("leader-b", Leaders.Witness.class);
        try {
            String inA = a.select(Leaders.Witness.class).get().id();
            String inB = b.select(Leaders.Witness.class).get().id();
            await().atMost(SOON)
                    .until(() ->
                            Leaders.granted(inA).size() + Leaders.granted(inB).size() == 1);
            await().during(Duration.ofMillis(1500)) // more than two leases: nobody else is elected
                    .atMost(SOON)
                    .until(() ->
                            Leaders.granted(inA).size() + Leaders.granted(inB).size() == 1);
            boolean aLeads = Leaders.granted(inA).size() == 1;
            SeContainer leader = aLeads ? a : b;
            String deposed = aLeads ? inA : inB;
            String next = aLeads ? inB : inA;
            LeadershipGranted first = Leaders.granted(deposed).get(0);
            assertThat(first.name()).isEqualTo("reports");
            assertThat(first.term().isValid()).isTrue();
            assertThat(Leaders.revoked(next)).isEmpty();

            leader.close();

            assertThat(Leaders.revoked(deposed)).singleElement().satisfies(revoked -> {
                assertThat(revoked.reason()).isEqualTo(RevocationReason.CLOSED);
                assertThat(revoked.term().fencingToken()).isEqualTo(first.term().fencingToken());
                assertThat(revoked.term().lost().toCompletableFuture()).isCompletedWithValue(RevocationReason.CLOSED);
            });
            await().atMost(SOON).until(() -> Leaders.granted(next).size() == 1);
            long nextToken = Leaders.granted(next).get(0).term().fencingToken();
            assertThat(nextToken)
                    .as("a later term has a larger token")
                    .isGreaterThan(first.term().fencingToken());
            assertThat(Leaders.HISTORY)
                    .as("the deposed leader was told before the other was granted")
                    .containsExactly(
                            deposed + " granted " + first.term().fencingToken(),
                            deposed + " revoked " + first.term().fencingToken() + " CLOSED",
                            next + " granted " + nextToken);
        } finally {
            for (SeContainer app : List.of(a, b)) {
                if (app.isRunning()) {
                    app.close();
                }
            }
        }
    }

    @Test
    @DisplayName("@LeaderOf(name) observes one leadership; an observer without it observes every declared one")
    void qualifierSelectsTheName() {
        Lockkit.useConfig(Map.of(
                "lockkit.provider", "local",
                "lockkit.leadership.reports.lease", "1s",
                "lockkit.leadership.billing.lease", "1s",
                "lockkit.leadership.billing.rejoin-delay", "0s"));
        SeContainer app = Lockkit.start("leader-names", Leaders.Witness.class, Leaders.AllNames.class);
        try {
            Leaders.AllNames all = app.select(Leaders.AllNames.class).get();
            String reports = app.select(Leaders.Witness.class).get().id();
            await().atMost(SOON).until(() -> all.names().size() == 2);
            assertThat(all.names()).containsExactlyInAnyOrder("reports", "billing");
            assertThat(Leaders.granted(reports))
                    .extracting(LeadershipGranted::name)
                    .containsExactly("reports");
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("an observer that throws is logged, and the instance goes on leading")
    void throwingObserverDoesNotEndTheTerm() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.leadership.reports.lease", "300ms"));
        SeContainer app = Lockkit.start("leader-broken", Leaders.Witness.class, Leaders.Broken.class);
        String witness = app.select(Leaders.Witness.class).get().id();
        DistributedLockFactory locks = app.select(DistributedLockFactory.class).get();
        try {
            await().atMost(SOON).until(() -> Leaders.granted(witness).size() == 1);
            await().during(Duration.ofMillis(1000)) // more than three leases: renewed, not revoked
                    .atMost(SOON)
                    .until(() -> Leaders.revoked(witness).isEmpty()
                            && Leaders.granted(witness).size() == 1
                            && Leaders.granted(witness).get(0).term().isValid());
            assertThat(locks.operations().health(Duration.ofSeconds(1)).leaderships())
                    .containsEntry("reports", true);
        } finally {
            app.close();
        }
        assertThat(Leaders.revoked(witness))
                .extracting(LeadershipRevoked::reason)
                .containsExactly(RevocationReason.CLOSED);
    }

    @Test
    @DisplayName("a misspelt leadership setting fails the start, naming the key it most likely means")
    void misspeltSettingFailsTheStart() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.leadership.reports.leese", "1s"));
        assertThatThrownBy(() ->
                        Lockkit.start("leader-typo", Leaders.Witness.class).close())
                .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .contains("lockkit.leadership.reports.leese (did you mean"
                                        + " lockkit.leadership.reports.lease?)")
                                .contains("(from MicroProfile Config)")));
    }

    @Test
    @DisplayName(
            "a bad leadership value fails the start naming the key; so does a lease shorter than a leadership takes")
    void badValuesFailTheStart() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.leadership.reports.lease", "soon"));
        assertThatThrownBy(
                        () -> Lockkit.start("leader-bad", Leaders.Witness.class).close())
                .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                        .anySatisfy(m -> assertThat(m).contains("lockkit.leadership.reports.lease = 'soon'")));
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.leadership.reports.lease", "10ms"));
        assertThatThrownBy(() ->
                        Lockkit.start("leader-short", Leaders.Witness.class).close())
                .satisfies(e -> assertThat(StartupTest.rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .contains("the leadership 'reports'")
                                .contains("lockkit.leadership.reports.lease = '10ms'")
                                .contains("at least")));
        assertThat(List.copyOf(Leaders.HISTORY)).as("nobody campaigned").isEmpty();
    }
}
