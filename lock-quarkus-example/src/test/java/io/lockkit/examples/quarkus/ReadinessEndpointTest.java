package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(RedisResource.class) // the same resources as InventoryServiceTest: one application for both
@DisplayName("lock-cdi's readiness check at /q/health/ready (quarkus-smallrye-health) against real Redis")
class ReadinessEndpointTest {

    /** Injected by the resource: the application's Redis, which this test stops and starts again. */
    RedisResource redis;

    @TestHTTPResource("/q/health/ready")
    URI ready;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The HTTP status and the "lockkit" check of one readiness request. */
    private record Readiness(int httpStatus, JsonObject lockkit) {
        String status() {
            return lockkit.getString("status");
        }

        JsonObject data() {
            return lockkit.getJsonObject("data");
        }
    }

    private Readiness readiness() {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(ready)
                            .timeout(Duration.ofSeconds(10))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
                JsonObject lockkit = reader.readObject().getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                        .filter(check -> check.getString("name").equals("lockkit"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no lockkit check in " + response.body()));
                return new Readiness(response.statusCode(), lockkit);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void redisBack() {
        if (redis != null) {
            redis.startServerAgain(); // whatever happened, the next test class finds its Redis
        }
    }

    @Test
    @DisplayName("is UP with Redis, DOWN (503) within the probe timeout once Redis stops, UP again when Redis returns")
    void followsRedisStoppingAndComingBack() {
        assertThat(redis).as("the resource injected itself").isNotNull();
        assumeTrue(redis.canStop(), "Redis is not a local process of this run; it cannot be stopped here");

        Readiness up = readiness();
        assertThat(up.httpStatus()).as("%s", up.lockkit()).isEqualTo(200);
        assertThat(up.status()).isEqualTo("UP");
        assertThat(up.data().getString("backend")).contains("redis://");
        assertThat(up.data().getJsonNumber("probeLatencyMicros").longValue()).isNotNegative();
        assertThat(up.data().getJsonNumber("activeHolds").longValue()).isNotNegative();
        assertThat(up.data().getJsonNumber("lossesLastMinute").longValue()).isZero();
        assertThat(up.data().getString("watchdog")).isIn("IDLE", "RUNNING");

        redis.stopServer();
        await().atMost(Duration.ofSeconds(10)).until(() -> readiness().httpStatus() == 503);
        long start = System.nanoTime();
        Readiness down = readiness();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("a DOWN answer comes within the 500 ms probe timeout (and HTTP)")
                .isLessThan(Duration.ofSeconds(3));
        assertThat(down.status()).isEqualTo("DOWN");
        assertThat(down.data().getString("reason")).startsWith("the backend did not answer");
        assertThat(down.data().containsKey("probeLatencyMicros")).isFalse();

        redis.startServerAgain();
        await().atMost(Duration.ofSeconds(15)).until(() -> readiness().httpStatus() == 200);
        assertThat(readiness().status()).isEqualTo("UP");
    }
}
