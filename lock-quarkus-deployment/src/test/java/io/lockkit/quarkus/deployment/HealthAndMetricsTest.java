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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("with quarkus-smallrye-health and quarkus-micrometer: readiness and meters with nothing to configure")
class HealthAndMetricsTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.http.test-port", "0");

    @Inject
    Counter counter;

    @TestHTTPResource("/q/health/ready")
    URI ready;

    @TestHTTPResource("/q/metrics")
    URI metrics;

    @Test
    @DisplayName("/q/health/ready holds the lockkit check, UP")
    void readinessHoldsTheLockkitCheck() throws Exception {
        HttpResponse<String> response = get(ready);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body().replaceAll("\\s", ""))
                .contains("\"name\":\"lockkit\"")
                .contains("\"status\":\"UP\"");
    }

    @Test
    @DisplayName("a @Locked call counts in lockkit_acquire_seconds at /q/metrics")
    void lockedCallShowsInMetrics() throws Exception {
        String series = "lockkit_acquire_seconds_count\\{kind=\"exclusive\",outcome=\"acquired\"}";
        double before = value(scrape(), series);
        counter.increment("metrics");
        assertThat(value(scrape(), series)).isEqualTo(before + 1);
    }

    private String scrape() throws Exception {
        HttpResponse<String> response = get(metrics);
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
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

    /** The value of the one sample matching {@code series} (a regular expression), 0 when absent. */
    private static double value(String body, String series) {
        Matcher m = Pattern.compile("(?m)^" + series + " (\\S+)$").matcher(body);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
