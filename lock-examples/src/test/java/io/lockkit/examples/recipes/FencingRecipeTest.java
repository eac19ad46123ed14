package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.jdbc.PostgresExtension;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "the fencing check at the protected resource" (docs/recipes.md): a holder whose lease
 * ran out while it was paused (here: an explicit lease that lapses) comes back after a newer holder
 * wrote, and its write is refused by the resource, in PostgreSQL and over HTTP.
 */
@DisplayName("recipe: the protected resource refuses writes of a stale holder")
class FencingRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @RegisterExtension
    static final PostgresExtension POSTGRES = new PostgresExtension();

    /** The lease of the holder that pauses: short, so that the test waits little for it to lapse. */
    private static final LockOptions SHORT_LEASE =
            LockOptions.builder().lease(Duration.ofMillis(300)).build();

    private DistributedLockFactory first;
    private DistributedLockFactory second;
    private final String id = "doc-" + UUID.randomUUID();

    @BeforeAll
    static void createTable(PostgresServer postgres) {
        postgres.query(
                "CREATE TABLE IF NOT EXISTS documents (id VARCHAR(64) PRIMARY KEY, body TEXT NOT NULL, last_token BIGINT NOT NULL DEFAULT 0)");
    }

    @BeforeEach
    void twoInstances(RedisServer redis) {
        first = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
        second = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
    }

    // guide:fencing-sql-begin
    /** Writes the document unless a holder with a newer token wrote it first; false: this hold is stale. */
    static boolean write(Connection db, String id, String body, long fencingToken) throws SQLException {
        try (PreparedStatement update =
                db.prepareStatement("UPDATE documents SET body = ?, last_token = ? WHERE id = ? AND last_token <= ?")) {
            update.setString(1, body);
            update.setLong(2, fencingToken);
            update.setString(3, id);
            update.setLong(4, fencingToken);
            return update.executeUpdate() == 1;
        }
    }
    // guide:fencing-sql-end

    /** The document's body and the token of its last write. */
    private static String[] stored(Connection db, String id) throws SQLException {
        try (PreparedStatement select = db.prepareStatement("SELECT body, last_token FROM documents WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rs = select.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return new String[] {rs.getString(1), Long.toString(rs.getLong(2))};
            }
        }
    }

    private static String render(String id) {
        return "the report " + id;
    }

    @Test
    @DisplayName("SQL: the stale holder's UPDATE ... WHERE last_token <= ? changes nothing; the newer write stays")
    void staleWriteIsRefusedBySql(PostgresServer postgres) throws Exception {
        try (Connection db = postgres.connect();
                Statement s = db.createStatement()) {
            s.execute("INSERT INTO documents (id, body) VALUES ('" + id + "', 'empty')");

            LockHandle paused = first.acquire("document:" + id, SHORT_LEASE);
            assertThat(write(db, id, "first draft", paused.fencingToken()))
                    .as("the holder writes while its lease runs")
                    .isTrue();
            // The holder pauses (a GC pause, a stopped VM) past its lease; meanwhile another instance takes the lock.
            await().atMost(Duration.ofSeconds(10)).until(() -> !paused.isValid());
            try (LockHandle newer = second.acquire("document:" + id, LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
                assertThat(newer.fencingToken()).isGreaterThan(paused.fencingToken());
                assertThat(write(db, id, "newer", newer.fencingToken())).isTrue();
                assertThat(write(db, id, "newer, again", newer.fencingToken()))
                        .as("a hold may write more than once")
                        .isTrue();
            }
            // The paused holder resumes and writes: refused, whatever it believes about its lock.
            assertThat(write(db, id, "stale", paused.fencingToken())).isFalse();
            assertThat(stored(db, id)[0]).isEqualTo("newer, again");

            long staleToken = paused.fencingToken();
            DistributedLockFactory locks = first;
            // guide:fencing-caller-begin
            try (LockHandle hold = locks.acquire("document:" + id, LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
                String body = render(id); // a pause here can outlast the lease: the token still protects the write
                if (!write(db, id, body, hold.fencingToken())) {
                    throw new IllegalStateException("document " + id + " has a newer writer; this hold is stale");
                }
            }
            // guide:fencing-caller-end
            String[] last = stored(db, id);
            assertThat(last[0]).isEqualTo(render(id));
            assertThat(Long.parseLong(last[1])).isGreaterThan(staleToken);
        }
    }

    // guide:fencing-rest-begin
    /** PUT /documents/{id} with a Fencing-Token header: 409 Conflict when a newer token has written the document. */
    static final class DocumentResource implements HttpHandler {

        record Document(String body, long token) {}

        private final Map<String, Document> documents = new ConcurrentHashMap<>();

        @Override
        public void handle(HttpExchange exchange) throws IOException {
            try (exchange) {
                String id = exchange.getRequestURI().getPath().substring("/documents/".length());
                long token;
                try {
                    token = Long.parseLong(exchange.getRequestHeaders().getFirst("Fencing-Token"));
                } catch (NumberFormatException missingOrMalformed) {
                    exchange.sendResponseHeaders(400, -1);
                    return;
                }
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(write(id, body, token) ? 204 : 409, -1);
            }
        }

        /** Stores the body unless a newer token wrote this document first (the same token may write again). */
        synchronized boolean write(String id, String body, long token) {
            Document current = documents.get(id);
            if (current != null && current.token() > token) {
                return false;
            }
            documents.put(id, new Document(body, token));
            return true;
        }
    }
    // guide:fencing-rest-end

    @Test
    @DisplayName("REST: the stale holder's PUT gets 409 Conflict; a PUT without a token 400")
    void staleWriteIsRefusedOverHttp() throws Exception {
        DocumentResource resource = new DocumentResource();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/documents/", resource);
        server.start();
        HttpClient http = HttpClient.newHttpClient();
        try {
            URI documentUri =
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/documents/" + id);

            LockHandle paused = first.acquire("document:" + id, SHORT_LEASE);
            assertThat(put(http, documentUri, paused, "first draft")).isEqualTo(204);
            await().atMost(Duration.ofSeconds(10)).until(() -> !paused.isValid());
            try (LockHandle newer = second.acquire("document:" + id, LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
                assertThat(put(http, documentUri, newer, "newer")).isEqualTo(204);
            }
            assertThat(put(http, documentUri, paused, "stale")).isEqualTo(409);
            assertThat(resource.documents.get(id).body()).isEqualTo("newer");

            HttpResponse<Void> noToken = http.send(
                    HttpRequest.newBuilder(documentUri)
                            .PUT(HttpRequest.BodyPublishers.ofString("x"))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(noToken.statusCode()).isEqualTo(400);

            try (LockHandle hold = first.acquire("document:" + id, LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
                String body = render(id);
                // guide:fencing-rest-client-begin
                HttpResponse<Void> response = http.send(
                        HttpRequest.newBuilder(documentUri)
                                .header("Fencing-Token", Long.toString(hold.fencingToken()))
                                .PUT(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 409) {
                    throw new IllegalStateException("document " + id + " has a newer writer; this hold is stale");
                }
                // guide:fencing-rest-client-end
                assertThat(response.statusCode()).isEqualTo(204);
            }
            assertThat(resource.documents.get(id).body()).isEqualTo(render(id));
        } finally {
            server.stop(0);
        }
    }

    private static int put(HttpClient http, URI uri, LockHandle hold, String body)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri)
                .header("Fencing-Token", Long.toString(hold.fencingToken()))
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
