package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusDevModeTest;
import io.quarkus.test.common.http.TestHTTPResource;
import java.net.URI;
import java.util.List;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.RedisClient;

@DisplayName(
        "dev mode: the Dev Services Redis serves @Locked and outlives a live reload; the old application's locks do not")
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
class DevModeLiveReloadTest {

    private static final String DEV_SERVICES = "lockkit Dev Services";

    @RegisterExtension
    static final QuarkusDevModeTest APP = new QuarkusDevModeTest()
            .withApplicationRoot(jar -> jar.addClasses(DevModeRoutes.class, Counter.class)
                    .addAsResource(new StringAsset("quarkus.http.port=0\n"), "application.properties"))
            .setLogRecordPredicate(record -> LogText.of(record).startsWith(DEV_SERVICES)
                    || LogText.of(record).startsWith("lockkit: closing; waiting"));

    @TestHTTPResource("/dev-mode/")
    URI app;

    @Test
    @DisplayName("a live reload keeps the server (address, data, process); the old application's hold is released")
    void liveReloadKeepsTheDevServicesRedis() throws Exception {
        String uri = get("redis-uri");
        assertThat(uri).startsWith("redis://127.0.0.1:");
        assertThat(get("backend")).as("the factory's backend").contains(uri);
        assertThat(logged(DEV_SERVICES))
                .singleElement()
                .satisfies(text -> assertThat(text)
                        .contains("from " + DevServicesTest.expectedSource())
                        .contains(" at " + uri + " "));
        assertThat(post("count/dev")).isEqualTo("1");
        assertThat(post("count/dev")).isEqualTo("2");
        String runId;
        try (RedisClient redis = RedisClient.create(URI.create(uri))) {
            runId = runId(redis);
            redis.set("dev-mode:before-reload", "kept");
        }
        // A hold the application never releases: the reload must not leave it to the lease's end
        // (the old factory's watchdog would renew it forever if the factory were not closed).
        String oldClient = get("client-id");
        assertThat(post("hold/report")).isNotEmpty();
        assertThat(get("holder/report")).isEqualTo(oldClient);

        APP.modifySourceFile(DevModeRoutes.class, source -> source.replace("\"first\"", "\"second\""));

        assertThat(get("generation")).as("the reloaded application").isEqualTo("second");
        assertThat(get("client-id")).as("a new factory").isNotEqualTo(oldClient);
        assertThat(get("redis-uri")).isEqualTo(uri);
        assertThat(get("backend")).contains(uri);
        try (RedisClient redis = RedisClient.create(URI.create(uri))) {
            assertThat(runId(redis))
                    .as("the same server process (INFO's run_id)")
                    .isEqualTo(runId);
            assertThat(redis.get("dev-mode:before-reload")).isEqualTo("kept");
        }
        assertThat(logged(DEV_SERVICES)).as("the server was started once").hasSize(1);
        assertThat(get("holder/report"))
                .as("the old application's hold, released when it stopped")
                .isEmpty();
        assertThat(logged("lockkit: closing"))
                .as("the reload waited for the hold dev mode's drain timeout, not the default 30 s")
                .containsExactly("lockkit: closing; waiting up to PT2S for 1 held lock(s) to be released");
        assertThat(post("count/dev"))
                .as("a new application: its counter starts again")
                .isEqualTo("1");
        assertThat(post("hold/report")).isNotEmpty();
        assertThat(get("holder/report")).isEqualTo(get("client-id"));
    }

    private static List<String> logged(String start) {
        return APP.getLogRecords().stream()
                .map(LogText::of)
                .filter(text -> text.startsWith(start))
                .toList();
    }

    private static String runId(RedisClient redis) {
        return redis.info("server")
                .lines()
                .filter(line -> line.startsWith("run_id:"))
                .findFirst()
                .orElseThrow()
                .trim();
    }

    private String get(String path) throws Exception {
        return DevModeHttp.get(app, path);
    }

    private String post(String path) throws Exception {
        return DevModeHttp.post(app, path);
    }
}
