package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.Leadership;
import io.lockkit.Term;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.LeadershipGranted;
import io.lockkit.cdi.LeadershipRevoked;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName(
        "@Inject @LeaderOf(name) Leadership naming a declared leadership: the start's check passes it, and it leads")
class DeclaredLeadershipTest {

    /** Injects the declared leadership and observes its events. */
    @ApplicationScoped
    public static class Reports {
        @Inject
        @LeaderOf("reports")
        Leadership reports;

        private final List<String> events = new CopyOnWriteArrayList<>();

        void onLead(@Observes @LeaderOf("reports") LeadershipGranted granted) {
            events.add("granted " + granted.term().fencingToken());
        }

        void onStepDown(@Observes @LeaderOf("reports") LeadershipRevoked revoked) {
            events.add("revoked " + revoked.term().fencingToken() + " " + revoked.reason());
        }

        /** Through a method: the test holds a client proxy, whose fields are not the bean's. */
        public Leadership leadership() {
            return reports;
        }

        public List<String> events() {
            return List.copyOf(events);
        }
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Reports.class))
            .overrideConfigKey("quarkus.lockkit.devservices.enabled", "false")
            .overrideConfigKey("quarkus.lockkit.provider", "local")
            .overrideConfigKey("quarkus.lockkit.leadership.reports.lease", "2s");

    @Inject
    Reports bean;

    @Test
    @DisplayName("the injected view is the declared leadership, elected on the in-JVM provider")
    void declaredLeadershipLeads() throws InterruptedException {
        Leadership reports = bean.leadership();
        assertThat(reports.name()).isEqualTo("reports");
        assertThat(reports.awaitTerm(Duration.ofSeconds(20))).isPresent();
        assertThat(reports.isLeader()).isTrue();
        assertThat(reports.lease()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("the observers get LeadershipGranted and, after a step down, LeadershipRevoked; then it leads again")
    void eventsFollowTheTerms() throws InterruptedException {
        Leadership reports = bean.leadership();
        Term term = reports.awaitTerm(Duration.ofSeconds(20)).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> bean.events().contains("granted " + term.fencingToken()));

        reports.stepDown();

        assertThat(reports.isLeader()).isFalse();
        assertThat(bean.events()).contains("revoked " + term.fencingToken() + " STEPPED_DOWN");
        await().atMost(Duration.ofSeconds(20)).until(reports::isLeader);
    }
}
