package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName(
        "quarkus.lockkit.health.enabled=false and quarkus.lockkit.metrics.enabled=false at build: no lockkit check, no"
                + " lockkit meters")
class BuildTimeSwitchesTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.lockkit.health.enabled", "false")
            .overrideConfigKey("quarkus.lockkit.metrics.enabled", "false");

    @Inject
    Counter counter;

    @TestHTTPResource("/q/health/ready")
    URI ready;

    @TestHTTPResource("/q/metrics")
    URI metrics;

    @Test
    @DisplayName("/q/health/ready answers without a lockkit check (removed, not kept UP)")
    void readinessWithoutTheLockkitCheck() throws Exception {
        HttpResponse<String> response = get(ready);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).doesNotContain("lockkit");
    }

    @Test
    @DisplayName("a @Locked call adds no lockkit_ series to /q/metrics")
    void noLockkitMeters() throws Exception {
        assertThat(counter.increment("metrics-off")).isEqualTo(1);
        HttpResponse<String> response = get(metrics);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).as("the registry serves other meters").contains("jvm_");
        assertThat(response.body()).doesNotContain("lockkit_");
    }

    private static HttpResponse<String> get(URI uri) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(uri)
                                .timeout(Duration.ofSeconds(10))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }
}
