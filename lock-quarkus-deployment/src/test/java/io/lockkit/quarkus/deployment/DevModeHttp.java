package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Requests to a dev-mode test application, which must answer 200; the body is returned. */
final class DevModeHttp {

    private DevModeHttp() {}

    static String get(URI base, String path) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    static String post(URI base, String path) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static String send(HttpRequest.Builder request) throws Exception {
        // a live reload happens within the first request after a change: a generous timeout
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(request.timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s", response.body()).isEqualTo(200);
        return response.body();
    }
}
