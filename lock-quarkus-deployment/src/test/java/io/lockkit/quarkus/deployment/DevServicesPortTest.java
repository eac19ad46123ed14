package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName(
        "Dev Services with a fixed port find a Redis already there (another application's) and share it, leaving it"
                + " running at exit")
class DevServicesPortTest {

    static final String URI = "test.lockkit.port-test.uri";

    /** Another application's Dev Services Redis, on the port both are configured with. */
    static final String OTHERS = SharedRedis.uri(URI, RedisFixture.freePort());

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class, SharedRedis.class))
            .overrideConfigKey("quarkus.lockkit.devservices.port", String.valueOf(SharedRedis.port(OTHERS)))
            .setLogRecordPredicate(record -> LogText.of(record).startsWith("lockkit Dev Services"))
            .assertLogRecords(records -> {
                try {
                    assertThat(records)
                            .map(LogText::of)
                            .singleElement()
                            .satisfies(text -> assertThat(text)
                                    .contains("already at " + OTHERS)
                                    .contains("left running"));
                    assertThat(SharedRedis.running(URI))
                            .as("the shared Redis after the application stopped")
                            .isTrue();
                } finally {
                    SharedRedis.stop(URI);
                }
            });

    @Inject
    Counter counter;

    @Test
    @DisplayName("the application locks on the Redis it found on the port")
    void usesTheRedisOnThePort() {
        assertThat(ConfigProvider.getConfig().getValue("lockkit.redis.uri", String.class))
                .isEqualTo(OTHERS);
        assertThat(counter.increment("shared")).isEqualTo(1);
        try (RedisServer others = SharedRedis.view(URI)) {
            assertThat(others.command("KEYS", "*")).asString().contains("counter:shared");
        }
    }
}
