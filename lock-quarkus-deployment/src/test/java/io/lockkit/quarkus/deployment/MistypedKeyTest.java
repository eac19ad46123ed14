package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("a mistyped quarkus.lockkit key is reported by Quarkus")
class MistypedKeyTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.lockkit.redis.urri", "redis://127.0.0.1:1")
            .overrideConfigKey("quarkus.lockkit.watchdog-lease", "20s")
            .setLogRecordPredicate(record -> LogText.of(record).contains("quarkus.lockkit."))
            .assertLogRecords(records -> assertThat(records)
                    .map(LogText::of)
                    .anySatisfy(text -> assertThat(text)
                            .contains("Unrecognized configuration key")
                            .contains("quarkus.lockkit.redis.urri"))
                    .noneSatisfy(text -> assertThat(text).contains("quarkus.lockkit.watchdog-lease")));

    @Inject
    Counter counter;

    @Test
    @DisplayName("the application runs with the key ignored; the warning names it (asserted on the log records)")
    void applicationRunsWithTheKeyIgnored() {
        assertThat(counter.increment("mistyped")).isEqualTo(1);
    }
}
