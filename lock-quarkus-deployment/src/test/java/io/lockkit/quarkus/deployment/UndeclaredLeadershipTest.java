package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Inject @LeaderOf(name) Leadership naming no declared leadership fails the Quarkus start, though no"
        + " bean uses it, with the message of CDI Full containers")
class UndeclaredLeadershipTest {

    /** Injects a leadership the configuration does not declare; never used. */
    @ApplicationScoped
    public static class Payroll {
        @Inject
        @LeaderOf("payroll")
        Leadership payroll;

        public boolean leads() {
            return payroll.isLeader();
        }
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Payroll.class))
            .overrideConfigKey("quarkus.lockkit.devservices.enabled", "false")
            .overrideConfigKey("quarkus.lockkit.provider", "local")
            .overrideConfigKey("quarkus.lockkit.leadership.reports.lease", "2s")
            .assertException(failure -> {
                List<String> messages = FailureMessages.of(failure);
                assertThat(messages)
                        .as("the failure's messages")
                        .anySatisfy(m -> assertThat(m)
                                .contains("lockkit: @LeaderOf(\"payroll\") Leadership is injected, but the"
                                        + " configuration declares no leadership 'payroll': set"
                                        + " quarkus.lockkit.leadership.payroll.lease"));
                assertThat(messages).noneSatisfy(m -> assertThat(m).contains("leadership 'reports'"));
            });

    @Test
    @DisplayName("the application never starts")
    void startFails() {
        throw new AssertionError("the start must fail");
    }
}
