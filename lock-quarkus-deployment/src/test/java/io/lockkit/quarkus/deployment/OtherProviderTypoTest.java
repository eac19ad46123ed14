package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("a third party's provider: a key in its section that it does not declare is reported once, by"
        + " lockkit, with the provider's keys; a misspelt section still gets lockkit's guess")
class OtherProviderTypoTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(MemoProviderFactory::deployWithCounter)
            .overrideConfigKey("quarkus.lockkit.provider", "memo")
            .overrideConfigKey("quarkus.lockkit.memo.lable", "typo")
            .overrideConfigKey("lockkit.memo.colour", "plain")
            .overrideConfigKey("quarkus.lockkit.memmo.label", "section")
            .setLogRecordPredicate(record -> LogText.of(record).contains("memo.lable")
                    || LogText.of(record).contains("memo.colour")
                    || LogText.of(record).contains("memmo.label"))
            .assertLogRecords(records -> assertThat(records)
                    .map(LogText::of)
                    .containsExactlyInAnyOrder(
                            "lockkit: unknown configuration key quarkus.lockkit.memo.lable is ignored; did you mean"
                                    + " quarkus.lockkit.memo.label? The memo provider reads quarkus.lockkit.memo.label,"
                                    + " quarkus.lockkit.memo.pool.size.",
                            "lockkit: unknown configuration key lockkit.memo.colour is ignored; did you mean"
                                    + " quarkus.lockkit.memo.label? The memo provider reads quarkus.lockkit.memo.label,"
                                    + " quarkus.lockkit.memo.pool.size.",
                            "lockkit: unknown configuration key quarkus.lockkit.memmo.label is ignored; did you mean"
                                    + " quarkus.lockkit.memo.label?"));

    @Inject
    Counter counter;

    @Test
    @DisplayName("the application runs on memo with the key ignored: the label is unset")
    void applicationRunsWithTheKeyIgnored() {
        assertThat(counter.increment("typo")).isEqualTo(1);
        assertThat(MemoProviderFactory.BUILT_WITH.get()).isEmpty();
    }
}
