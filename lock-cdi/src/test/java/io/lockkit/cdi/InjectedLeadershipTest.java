package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.Leadership.RevocationReason;
import jakarta.enterprise.inject.se.SeContainer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("@Inject @LeaderOf(name) Leadership: a view of the leadership declared under that name")
class InjectedLeadershipTest {

    private static final Duration SOON = Duration.ofSeconds(10);

    @BeforeEach
    void configure() {
        Leaders.HISTORY.clear();
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.leadership.reports.lease", "500ms"));
    }

    @AfterEach
    void clearConfig() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName(
            "the guide's timer writes with the current term while this instance leads, and not after it stepped down")
    void guideTimerWritesOnTheLeaderOnly() throws InterruptedException {
        Reports.WRITES.clear();
        SeContainer app = Lockkit.start("injected-guide", NightlyReport.class, Reports.class, Leaders.Nightly.class);
        try {
            Leaders.Nightly nightly = app.select(Leaders.Nightly.class).get();
            long term = nightly.leadership().awaitTerm(SOON).orElseThrow().fencingToken();
            NightlyReport report = app.select(NightlyReport.class).get();
            report.run();
            assertThat(Reports.WRITES).containsExactly(term);
            nightly.leadership().stepDown();
            report.run();
            assertThat(Reports.WRITES).as("not the leader any more").containsExactly(term);
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("the injected leadership leads once elected, steps down on request, and refuses close")
    void injectedInCdiFull() throws InterruptedException {
        leadsThroughTheInjectedLeadership(Lockkit.start("injected-full", Leaders.Nightly.class, Leaders.Witness.class));
    }

    private static void leadsThroughTheInjectedLeadership(SeContainer app) throws InterruptedException {
        String witness = app.select(Leaders.Witness.class).get().id();
        try {
            Leaders.Nightly nightly = app.select(Leaders.Nightly.class).get();
            assertThat(nightly.leadership().awaitTerm(SOON)).isPresent();
            assertThat(nightly.runIfLeader()).isTrue();
            assertThat(nightly.leadership().name()).isEqualTo("reports");
            assertThat(nightly.leadership().lease()).as("the configured lease").isEqualTo(Duration.ofMillis(500));
            // isLeader() turns true before the observers are called
            await().atMost(SOON).until(() -> Leaders.granted(witness).size() == 1);
            assertThat(nightly.leadership().currentTerm())
                    .get()
                    .extracting(t -> t.fencingToken())
                    .isEqualTo(Leaders.granted(witness).get(0).term().fencingToken());
            assertThatThrownBy(() -> nightly.leadership().close())
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("closed when the application stops");

            nightly.leadership().stepDown();
            assertThat(nightly.runIfLeader())
                    .as("sits out a lease after stepping down")
                    .isFalse();
            assertThat(Leaders.revoked(witness))
                    .extracting(LeadershipRevoked::reason)
                    .containsExactly(RevocationReason.STEPPED_DOWN);
            await().atMost(SOON).until(nightly::runIfLeader);
            await().atMost(SOON).until(() -> Leaders.granted(witness).size() == 2);
        } finally {
            app.close();
        }
        assertThat(Leaders.revoked(witness))
                .extracting(LeadershipRevoked::reason)
                .containsExactly(RevocationReason.STEPPED_DOWN, RevocationReason.CLOSED);
    }

    @Test
    @DisplayName("injecting a leadership the configuration does not declare fails the deployment, naming the key")
    void undeclaredNameFailsTheDeployment() {
        assertThat(Lockkit.failure(() -> Lockkit.start("injected-undeclared", Leaders.Undeclared.class))
                        .messages())
                .anySatisfy(m -> assertThat(m)
                        .contains("@LeaderOf(\"payroll\") Leadership is injected, but the configuration declares no"
                                + " leadership 'payroll': set lockkit.leadership.payroll.lease"));
    }
}
