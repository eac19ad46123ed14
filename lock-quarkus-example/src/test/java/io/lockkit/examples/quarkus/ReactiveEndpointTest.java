package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The reactive endpoint hammered by concurrent requests, with the application's log in a file of its
 * own and Vert.x' blocked-thread checker made strict (a task over 500 ms on an event loop is reported
 * at the checker's next round, every 100 ms).
 */
@QuarkusTest
@TestProfile(ReactiveEndpointTest.StrictEventLoop.class)
@WithTestResource(RedisResource.class)
@DisplayName("a RESTEasy Reactive endpoint returning Uni under @Locked, on the event loop")
class ReactiveEndpointTest {

    // One file per test JVM: the file handler appends, and an earlier run's control must not count.
    static final Path LOG = Path.of(
            "target", "reactive-endpoint-test-" + ProcessHandle.current().pid() + ".log");

    /** The log in a file and a strict blocked-thread checker. */
    public static class StrictEventLoop implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.log.file.enabled", "true",
                    "quarkus.log.file.path", LOG.toString(),
                    "quarkus.vertx.max-event-loop-execute-time", "500ms",
                    // Quarkus passes this one to Vert.x as the checker's interval (default 2 s).
                    "quarkus.vertx.warning-exception-time", "100ms");
        }
    }

    @Inject
    StockCounterResource stock;

    @TestHTTPResource("/stock/tea/reserve")
    URI reserve;

    @TestHTTPResource("/test/block-event-loop")
    URI block;

    @Test
    @DisplayName("50 concurrent requests: no overlap, no lost update, and no blocked event loop in the log")
    void concurrentRequestsNeverOverlapNorBlockTheLoop() throws Exception {
        int requests = 50;
        HttpClient client = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            responses.add(
                    client.sendAsync(post(reserve, Duration.ofSeconds(60)), HttpResponse.BodyHandlers.ofString()));
        }
        CompletableFuture.allOf(responses.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            assertThat(response.get().statusCode()).isEqualTo(200);
        }
        assertThat(stock.overlaps()).isZero();
        assertThat(stock.reserved()).isEqualTo(requests);

        // Control: block an event loop on purpose and wait until the checker reports it. Its report
        // comes at a later round of the checker than any block during the requests above, so the log
        // up to the control's request holds every report about them: there must be none.
        int beforeControl = log().length();
        HttpResponse<String> blocked =
                client.send(post(block, Duration.ofSeconds(30)), HttpResponse.BodyHandlers.ofString());
        assertThat(blocked.statusCode()).isEqualTo(200);
        await("the checker reports the control's blocked loop")
                .atMost(Duration.ofSeconds(10))
                .until(() -> log().indexOf("has been blocked for", beforeControl) >= 0);
        String log = log();
        int controlReport = log.lastIndexOf('\n', log.indexOf("has been blocked for", beforeControl)) + 1;
        String beforeTheControl = log.substring(0, controlReport); // up to the report's line
        assertThat(beforeTheControl)
                .as("the log before the control's report")
                .doesNotContain("has been blocked for")
                .doesNotContain("BlockedThreadChecker")
                .contains("lockkit");
    }

    private static HttpRequest post(URI uri, Duration timeout) {
        return HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
    }

    private static String log() throws Exception {
        return Files.exists(LOG) ? Files.readString(LOG, StandardCharsets.UTF_8) : "";
    }
}
