package io.lockkit.quarkus.deployment;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A client of the Dev UI's JSON-RPC endpoint ({@code /q/dev-ui/json-rpc-ws}), as the Dev UI's pages
 * call it: one WebSocket, requests matched to responses by id.
 */
final class DevUiJsonRpc implements AutoCloseable {

    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();

    DevUiJsonRpc(URI application) throws Exception {
        URI endpoint = URI.create(
                application.resolve("/q/dev-ui/json-rpc-ws").toString().replaceFirst("^http", "ws"));
        socket = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .connectTimeout(Duration.ofSeconds(30))
                .buildAsync(endpoint, new Listener())
                .get(60, TimeUnit.SECONDS);
    }

    /**
     * What a call of {@code method} without parameters returned; an {@link AssertionError} with the
     * response when it failed. The Dev UI wraps a method's value as {@code {"messageType": "Response",
     * "object": value}}.
     */
    @Nullable
    Object result(String method) throws Exception {
        JsonObject response = call(method);
        JsonObject result = response.getJsonObject("result");
        if (result == null || !"Response".equals(result.getString("messageType"))) {
            throw new AssertionError(method + " failed: " + response.encode());
        }
        return result.getValue("object");
    }

    /** The whole response to a call of {@code method} without parameters. */
    JsonObject call(String method) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonObject> response = new CompletableFuture<>();
        pending.put(id, response);
        JsonObject request = new JsonObject()
                .put("jsonrpc", "2.0")
                .put("id", id)
                .put("method", method)
                .put("params", new JsonObject());
        socket.sendText(request.encode(), true).get(30, TimeUnit.SECONDS);
        return response.get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "").orTimeout(10, TimeUnit.SECONDS);
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                JsonObject message = new JsonObject(text.toString());
                text.setLength(0);
                Object id = message.getValue("id");
                if (id instanceof Number number) {
                    CompletableFuture<JsonObject> response = pending.remove(number.intValue());
                    if (response != null) {
                        response.complete(message);
                    }
                }
            }
            webSocket.request(1);
            return null;
        }
    }
}
