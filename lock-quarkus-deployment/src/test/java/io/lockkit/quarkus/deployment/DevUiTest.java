package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.jedis.JedisLockProvider;
import io.quarkus.test.QuarkusDevModeTest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Dev UI: lockkit's card shows the backend and lists the locks the application holds")
class DevUiTest {

    /** The Dev UI's name of a JSON-RPC method of the extension: its artifact id, '_', the method. */
    private static final String NAMESPACE = "lock-quarkus_";

    @RegisterExtension
    static final QuarkusDevModeTest APP = new QuarkusDevModeTest()
            .withApplicationRoot(jar -> jar.addClasses(DevModeRoutes.class, Counter.class)
                    .addAsResource(new StringAsset("quarkus.http.port=0\n"), "application.properties"));

    @TestHTTPResource("/")
    URI app;

    @Test
    @DisplayName(
            "the card's page and labels are served; getHeldLocks lists a held lock with holder, token and lease left")
    void heldLocksListTheApplicationsHolds() throws Exception {
        assertThat(get("q/dev-ui/devui-jsonrpc-data.js"))
                .as("the Dev UI knows the card's methods")
                .contains(NAMESPACE + "getHeldLocks", NAMESPACE + "getBackend", NAMESPACE + "getHeldLockCount");
        assertThat(get("q/dev-ui/devui-data.js"))
                .as("the card's pages")
                .contains("\"id\":\"lock-quarkus/held-locks\"", "\"id\":\"lock-quarkus/backend\"");
        for (String page : new String[] {"locks", "backend"}) {
            assertThat(get("q/dev-ui/lock-quarkus/qwc-lockkit-" + page + ".js"))
                    .as("the page's web component is served")
                    .contains("customElements.define('qwc-lockkit-" + page + "'");
        }
        String uri = get("dev-mode/redis-uri");
        String clientId = get("dev-mode/client-id");
        try (DevUiJsonRpc rpc = new DevUiJsonRpc(app)) {
            assertThat(rpc.result(NAMESPACE + "getBackend"))
                    .as("the provider and its address")
                    .isInstanceOf(String.class)
                    .asString()
                    .startsWith("JedisLockProvider[")
                    .contains(uri);
            assertThat(result(rpc, "getHeldLocks")).isEmpty();
            assertThat(rpc.result(NAMESPACE + "getHeldLockCount")).isEqualTo(0);

            long token = Long.parseLong(post("dev-mode/hold/report"));
            JsonArray locks;
            // another process's hold under the same key prefix is not this application's
            try (DistributedLockFactory elsewhere = DistributedLockFactory.create(JedisLockProvider.create(uri));
                    LockHandle other = elsewhere.acquire("held-elsewhere")) {
                assertThat(elsewhere.operations().inspect(other.name())).isPresent();
                locks = result(rpc, "getHeldLocks");
            }
            assertThat(locks).hasSize(1);
            JsonObject row = locks.getJsonObject(0);
            assertThat(row.getString("name")).isEqualTo("report");
            assertThat(row.getString("holder")).startsWith(clientId + ":");
            assertThat(row.getLong("fencingToken")).isEqualTo(token);
            assertThat(row.getLong("leaseLeftMillis"))
                    .as("lease left, renewed by the watchdog")
                    .isPositive();
            assertThat(row.getInteger("holdCount")).isEqualTo(1);
            assertThat(rpc.result(NAMESPACE + "getHeldLockCount")).isEqualTo(1);
            assertThat(rpc.result(NAMESPACE + "getClientId")).isEqualTo(clientId);
        }
    }

    private static JsonArray result(DevUiJsonRpc rpc, String method) throws Exception {
        Object result = rpc.result(NAMESPACE + method);
        assertThat(result).isInstanceOf(JsonArray.class);
        return (JsonArray) result;
    }

    private String get(String path) throws Exception {
        return DevModeHttp.get(app, path);
    }

    private String post(String path) throws Exception {
        return DevModeHttp.post(app, path);
    }
}
