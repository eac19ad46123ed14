package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName(
        "@Inject @LeaderOf(name) Leadership naming a declared leadership: the start's check passes it, and it leads")
class DeclaredLeadershipTest {

    /** Injects the declared leadership. */
    @ApplicationScoped
    public static class Reports {
        @Inject
        @LeaderOf("reports")
        Leadership reports;

        /** Through a method: the test holds a client proxy, whose fields are not the bean's. */
        public Leadership leadership() {
            return reports;
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
}
