package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.Term;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@QuarkusTest
@TestProfile(DeclaredLeadershipTest.Declared.class)
@DisplayName("a leadership declared in configuration, in Quarkus (ArC runs lock-cdi's build compatible extension)")
class DeclaredLeadershipTest {

    /** A profile of its own: the in-JVM provider and the leadership {@code reports}. */
    public static class Declared implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("lockkit.provider", "local", "lockkit.leadership.reports.lease", "500ms");
        }
    }

    @Inject
    LeaderOnlyReports reports;

    @Test
    @DisplayName(
            "the observers get LeadershipGranted and, after a step down, LeadershipRevoked; the injected view leads")
    void eventsAndInjectedLeadership() throws InterruptedException {
        Term term = reports.leadership().awaitTerm(Duration.ofSeconds(10)).orElseThrow();
        assertThat(reports.leadership().isLeader()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> reports.events().contains("granted " + term.fencingToken()));
        reports.leadership().stepDown();
        assertThat(reports.leadership().isLeader()).isFalse();
        assertThat(reports.events()).contains("revoked " + term.fencingToken() + " STEPPED_DOWN");
        await().atMost(Duration.ofSeconds(10)).until(() -> reports.leadership().isLeader());
    }
}
