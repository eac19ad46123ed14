package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("a mistyped key is reported once, naming quarkus.lockkit keys: a quarkus.lockkit one by Quarkus, a plain"
        + " lockkit one by lockkit, with the Dev Services key it means")
class MistypedKeyTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.lockkit.redis.urri", "redis://127.0.0.1:1")
            .overrideConfigKey("lockkit.devservice.enabled", "true")
            .overrideConfigKey("quarkus.lockkit.watchdog-lease", "20s")
            .setLogRecordPredicate(record -> LogText.of(record).contains("redis.urri")
                    || LogText.of(record).contains("devservice.enabled")
                    || LogText.of(record).contains("watchdog-lease"))
            .assertLogRecords(records -> {
                assertThat(records)
                        .map(LogText::of)
                        .filteredOn(text -> text.contains("redis.urri"))
                        .singleElement()
                        .satisfies(text -> assertThat(text)
                                .contains("Unrecognized configuration key")
                                .contains("quarkus.lockkit.redis.urri"));
                assertThat(records)
                        .map(LogText::of)
                        .filteredOn(text -> text.contains("devservice.enabled"))
                        .singleElement()
                        .isEqualTo("lockkit: unknown configuration key lockkit.devservice.enabled is ignored; did you"
                                + " mean quarkus.lockkit.devservices.enabled?");
                assertThat(records).map(LogText::of).noneMatch(text -> text.contains("watchdog-lease"));
            });

    @Inject
    Counter counter;

    @Test
    @DisplayName("the application runs with the key ignored; the warning names it (asserted on the log records)")
    void applicationRunsWithTheKeyIgnored() {
        assertThat(counter.increment("mistyped")).isEqualTo(1);
    }
}
