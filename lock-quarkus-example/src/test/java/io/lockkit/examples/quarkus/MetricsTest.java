package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
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

/** Same test resource and profile as InventoryServiceTest: the two share one application start. */
@QuarkusTest
@WithTestResource(RedisResource.class)
@DisplayName("lockkit's meters in Quarkus' Micrometer registry, read from /q/metrics (Prometheus)")
class MetricsTest {

    @Inject
    InventoryService inventory;

    @TestHTTPResource("/q/metrics")
    URI metrics;

    @Test
    @DisplayName("a @Locked call shows in /q/metrics: acquisitions by outcome, hold times, losses by cause, gauges")
    void lockedCallShowsInPrometheusMetrics() throws Exception {
        double before = value(scrape(), "lockkit_acquire_seconds_count\\{kind=\"exclusive\",outcome=\"acquired\"}");
        inventory.reserve("metrics", 1);
        String body = scrape();
        assertThat(value(body, "lockkit_acquire_seconds_count\\{kind=\"exclusive\",outcome=\"acquired\"}"))
                .isEqualTo(before + 1);
        assertThat(value(body, "lockkit_held_seconds_count\\{kind=\"exclusive\"}"))
                .isGreaterThanOrEqualTo(1);
        assertThat(value(body, "lockkit_holds_active\\{kind=\"exclusive\"}")).isZero();
        assertThat(value(body, "lockkit_waiters")).isZero();
        assertThat(value(body, "lockkit_lost_total\\{cause=\"not_held\",kind=\"exclusive\"}"))
                .isZero();
        assertThat(value(body, "lockkit_renewal_failures_total")).isZero();
        assertThat(body).contains("lockkit_acquire_seconds_count{kind=\"exclusive\",outcome=\"busy\"}");
    }

    private String scrape() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(metrics)
                                .timeout(Duration.ofSeconds(10))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /** The value of the one sample whose name and labels match {@code series} (a regular expression). */
    private static double value(String body, String series) {
        Matcher m = Pattern.compile("(?m)^" + series + " (\\S+)$").matcher(body);
        assertThat(m.find()).as("%s in%n%s", series, body).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
