package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("a third party's provider: its quarkus.lockkit.<name>.* keys reach its factory, with no warning")
class OtherProviderKeysTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(MemoProviderFactory::deployWithCounter)
            .overrideConfigKey("quarkus.lockkit.provider", "memo")
            .overrideConfigKey("quarkus.lockkit.memo.label", "from-quarkus")
            .overrideConfigKey("quarkus.lockkit.memo.pool.size", "2")
            .setLogRecordPredicate(record -> LogText.of(record).contains("memo."))
            .assertLogRecords(records -> assertThat(records).map(LogText::of).isEmpty());

    @Inject
    Counter counter;

    @Test
    @DisplayName("quarkus.lockkit.memo.label is the label the memo factory built its provider with; no key of"
            + " memo's is reported (asserted on the log records)")
    void declaredKeyReachesTheFactory() {
        assertThat(counter.increment("memo")).isEqualTo(1);
        assertThat(MemoProviderFactory.BUILT_WITH.get()).isEqualTo("from-quarkus");
    }
}
