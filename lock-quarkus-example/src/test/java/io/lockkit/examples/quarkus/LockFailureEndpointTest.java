package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.LockHandle;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a client of a {@code @Locked} endpoint gets when the lock cannot be had: lock-cdi's
 * exception mappers, found by Quarkus REST in lock-cdi's jar, answer 503 with {@code Retry-After}
 * while Redis is down (blocking and reactive endpoints alike) and 409 when the lock stays busy;
 * without them both were a bare 500.
 */
@QuarkusTest
@WithTestResource(RedisResource.class) // the same resources as InventoryServiceTest: one application for both
@DisplayName("@Locked endpoints in Quarkus REST: 503 with Retry-After when Redis is down, 409 when the lock is busy")
class LockFailureEndpointTest {

    /** Injected by the resource: the application's Redis, which this test stops and starts again. */
    RedisResource redis;

    @Inject
    InventoryService inventory;

    @TestHTTPResource("/")
    URI root;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> post(String path) {
        try {
            return http.send(
                    HttpRequest.newBuilder(root.resolve(path))
                            .timeout(Duration.ofSeconds(30))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
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
    @DisplayName("Redis down: 503 with Retry-After from a blocking and a reactive (Uni) endpoint; 200 once it is back")
    void unavailableBackendIs503WithRetryAfter() {
        assertThat(redis).as("the resource injected itself").isNotNull();
        assumeTrue(redis.canStop(), "Redis is not a local process of this run; it cannot be stopped here");
        assertThat(post("inventory/outage-1/reserve?quantity=1").statusCode()).isEqualTo(200);

        redis.stopServer();
        try {
            for (String path : new String[] {"inventory/outage-1/reserve?quantity=1", "stock/outage-2/reserve"}) {
                HttpResponse<String> down = post(path);
                assertThat(down.statusCode())
                        .as("POST %s: %s", path, down.body())
                        .isEqualTo(503);
                assertThat(down.headers().firstValue("Retry-After")).as(path).hasValue("5");
                assertThat(down.body())
                        .as("names no host, lock or exception")
                        .isEqualTo("The lock service is unavailable; retry later.\n");
            }
        } finally {
            redis.startServerAgain();
        }
        await().atMost(Duration.ofSeconds(15))
                .until(() -> post("inventory/outage-1/reserve?quantity=1").statusCode() == 200);
        assertThat(post("stock/outage-2/reserve").statusCode()).isEqualTo(200);
    }

    @Test
    @DisplayName("a lock still busy after the wait is 409 Conflict, without Retry-After; 200 once it is free")
    void busyLockIs409() throws Exception {
        try (LockHandle held = inventory.holdSku("busy-1")) {
            HttpResponse<String> busy = post("inventory/busy-1/reserve-now?quantity=1");
            assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
            assertThat(busy.headers().firstValue("Retry-After")).isEmpty();
            assertThat(busy.body()).isEqualTo("The resource is busy with another request; retry later.\n");
            assertThat(held.isValid()).isTrue();
        }
        assertThat(post("inventory/busy-1/reserve-now?quantity=1").statusCode()).isEqualTo(200);
    }
}
