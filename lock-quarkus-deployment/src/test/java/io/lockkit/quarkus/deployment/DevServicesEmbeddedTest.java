package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("Dev Services: the Redis binary bundled with lockkit's Redis launcher, when the sources say so")
class DevServicesEmbeddedTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.lockkit.devservices.sources", "embedded")
            .setLogRecordPredicate(record -> LogText.of(record).startsWith("lockkit Dev Services"))
            .assertLogRecords(records -> assertThat(records)
                    .map(LogText::of)
                    .singleElement()
                    .satisfies(text -> assertThat(text)
                            .contains("Redis 6.2")
                            .contains("from the redis-server binary bundled with lockkit's Redis launcher")));

    @Inject
    Counter counter;

    @Test
    @DisplayName("the bundled Redis 6.2 serves @Locked")
    void lockedMethodRunsOnTheBundledRedis() {
        assertThat(counter.increment("embedded")).isEqualTo(1);
    }
}
