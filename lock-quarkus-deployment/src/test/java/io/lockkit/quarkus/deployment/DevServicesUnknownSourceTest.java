package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("Dev Services: an unknown source fails the build naming the key")
class DevServicesUnknownSourceTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.lockkit.devservices.sources", "path,docker")
            .assertException(failure -> {
                Throwable cause = failure;
                while (cause != null && !(cause instanceof IllegalArgumentException)) {
                    cause = cause.getCause();
                }
                assertThat(cause)
                        .as("an IllegalArgumentException in %s", failure)
                        .isNotNull()
                        .hasMessageContaining("quarkus.lockkit.devservices.sources")
                        .hasMessageContaining("'docker'");
            });

    @Test
    @DisplayName("the application never starts")
    void buildFails() {
        throw new AssertionError("the build must fail");
    }
}
