package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.cdi.DistributedBulkhead;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@DistributedBulkhead misuse fails the Quarkus build, naming the method and the member")
class BadBulkheadTest {

    /** Permits over the capacity, and one name declared with two capacities. */
    @ApplicationScoped
    public static class Exports {
        @DistributedBulkhead(value = "exports", capacity = 2, permits = 3)
        public void export() {}

        @DistributedBulkhead(value = "partner", capacity = 3)
        public void quote() {}

        @DistributedBulkhead(value = "partner", capacity = 2)
        public void order() {}
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Exports.class))
            .overrideConfigKey("quarkus.lockkit.devservices.enabled", "false")
            .assertException(failure -> {
                List<String> messages = FailureMessages.of(failure);
                assertThat(messages)
                        .as("the failure's messages")
                        .anySatisfy(m -> assertThat(m)
                                .contains("@DistributedBulkhead on")
                                .contains("Exports.export()")
                                .contains("permits 3 exceed the capacity 2"))
                        .anySatisfy(m -> assertThat(m)
                                .contains("Exports.quote()")
                                .contains("capacity 3 differs from the capacity 2")
                                .contains("Exports.order()"));
            });

    @Test
    @DisplayName("the application is never built")
    void buildFails() {
        throw new AssertionError("the build must fail");
    }
}
