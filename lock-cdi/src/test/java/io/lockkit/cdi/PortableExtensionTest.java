package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * CDI Full runs the portable extension and skips the build compatible one (which Quarkus runs, and
 * which Weld would otherwise run through its translator, whose static state keeps an undeployed
 * application's class loader alive). Weld counts the portable extension as present when lock-cdi's
 * jar lists it, so the build compatible path is exercised by the Quarkus example's tests.
 */
@DisplayName("in CDI Full only the portable extension runs")
class PortableExtensionTest {

    @AfterEach
    void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("with the portable extension present, the build compatible one is skipped (no double report)")
    void skippedWhenThePortableOneIsPresent() {
        Lockkit.Failure failure = Lockkit.failure(
                () -> Lockkit.deployment(Misuses.UnknownParameter.class).start("full-misuse"));
        assertThat(failure.error()).isInstanceOf(DeploymentException.class);
        // Weld's message lists every problem (its causes repeat them); OpenWebBeans logs each one.
        String problem = "no parameter 'ordr'";
        int inException = failure.chain().stream()
                .filter(m -> m.contains(problem))
                .findFirst()
                .map(m -> count(m, problem))
                .orElse(0);
        assertThat(inException
                        + failure.logged().stream()
                                .mapToInt(m -> count(m, problem))
                                .sum())
                .as("reported once")
                .isEqualTo(1);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
