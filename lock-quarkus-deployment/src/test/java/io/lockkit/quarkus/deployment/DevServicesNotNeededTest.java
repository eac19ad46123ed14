package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("Dev Services: no Redis is started when one is configured")
class DevServicesNotNeededTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            // a server that is not there: lazy start, so the application starts without it
            .overrideConfigKey("lockkit.redis.uri", "redis://127.0.0.1:1")
            .overrideConfigKey("quarkus.lockkit.startup", "lazy")
            .setLogRecordPredicate(record -> LogText.of(record).startsWith("lockkit Dev Services"))
            .assertLogRecords(records -> assertThat(records).isEmpty());

    @Test
    @DisplayName("the configured lockkit.redis.uri stays the application's")
    void configuredServerStays() {
        assertThat(ConfigProvider.getConfig().getValue("lockkit.redis.uri", String.class))
                .isEqualTo("redis://127.0.0.1:1");
        assertThat(ConfigProvider.getConfig().getOptionalValue("quarkus.lockkit.redis.uri", String.class))
                .isEmpty();
    }
}
