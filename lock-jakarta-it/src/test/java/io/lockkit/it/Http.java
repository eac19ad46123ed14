package io.lockkit.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Plain-text HTTP calls to one server instance's application. Thread-safe. */
final class Http {

    static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(3);
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    private final ServerInstance server;
    /** The application's base URL: the main one, or a copy deployed under another context root. */
    private final String baseUrl;

    Http(ServerInstance server) {
        this.server = server;
        this.baseUrl = null;
    }

    /** Calls to the copy of the application deployed as {@code context} on {@code server}. */
    Http(ServerInstance server, String context) {
        this.server = server;
        this.baseUrl = server.baseUrl().replace("/" + ServerInstance.CONTEXT + "/", "/" + context + "/");
    }

    private String base() {
        return baseUrl != null ? baseUrl : server.baseUrl();
    }

    /**
     * A status, body and {@code Retry-After} header (empty when absent); for a 500, {@code cause}
     * is the last exception line of the server's log.
     */
    record Response(int status, String body, String cause, Optional<String> retryAfter) {
        String ok() {
            if (status != 200) {
                throw new AssertionError("HTTP " + status + ": " + readable());
            }
            return body;
        }

        /** The body without HTML markup (servers answer errors with HTML pages), at most 800 characters. */
        String readable() {
            String text = body.replaceAll("(?s)<style.*?</style>", " ")
                    .replaceAll("<[^>]+>", " ")
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&")
                    .replaceAll("\\s+", " ")
                    .strip();
            text = text.length() <= 800 ? text : text.substring(0, 800) + "...";
            return cause.isEmpty() ? text : text + " [server log: " + cause + "]";
        }
    }

    private HttpRequest request(String method, String path) {
        return HttpRequest.newBuilder(URI.create(base() + path))
                .timeout(REQUEST_TIMEOUT)
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
    }

    Response get(String path) {
        return send("GET", path);
    }

    Response post(String path) {
        return send("POST", path);
    }

    CompletableFuture<Response> postAsync(String path) {
        return CLIENT.sendAsync(request("POST", path), HttpResponse.BodyHandlers.ofString())
                .thenApply(this::response);
    }

    /** The body of a GET that answers 200; empty when the server refuses the connection or answers otherwise. */
    Optional<String> tryGet(String path) {
        try {
            HttpResponse<String> response = CLIENT.send(
                    HttpRequest.newBuilder(URI.create(base() + path))
                            .timeout(Duration.ofSeconds(10))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Whether anything answers HTTP at {@code url}. */
    static boolean answers(String url) {
        try {
            CLIENT.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .timeout(Duration.ofSeconds(5))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Response response(HttpResponse<String> response) {
        return new Response(
                response.statusCode(),
                response.body(),
                response.statusCode() >= 500 ? server.lastException() : "",
                response.headers().firstValue("Retry-After"));
    }

    private Response send(String method, String path) {
        try {
            HttpResponse<String> response = CLIENT.send(request(method, path), HttpResponse.BodyHandlers.ofString());
            return response(response);
        } catch (IOException e) {
            throw new AssertionError(method + " " + base() + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
