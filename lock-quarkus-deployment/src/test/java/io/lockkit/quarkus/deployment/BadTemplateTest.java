package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.cdi.Locked;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("a @Locked template naming no parameter fails the Quarkus build, naming the method")
class BadTemplateTest {

    /** A bean whose template misspells its parameter. */
    @ApplicationScoped
    public static class Shipping {
        @Locked("order:{ordr}")
        public void ship(long order) {}
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Shipping.class))
            .overrideConfigKey("quarkus.lockkit.devservices.enabled", "false")
            .assertException(failure -> {
                List<String> messages = FailureMessages.of(failure);
                assertThat(messages)
                        .as("the failure's messages")
                        .anySatisfy(m ->
                                assertThat(m).contains("Shipping.ship(long)").contains("ordr"));
            });

    @Test
    @DisplayName("the application is never built")
    void buildFails() {
        throw new AssertionError("the build must fail");
    }
}
