package io.lockkit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.benchmarks.FailoverBenchmarkMain.Scenario;
import org.junit.jupiter.api.Test;

class FailoverBenchmarkMainTest {

    private static final String DOCUMENT = "# Title\n\n"
            + "<!-- generated: kill -->\nold kill table\n<!-- end generated: kill -->\n\n"
            + "### Analysis (added by hand)\n\nkill analysis\n\n"
            + "<!-- generated: graceful -->\nold graceful table\n<!-- end generated: graceful -->\n\n"
            + "graceful analysis\n";

    @Test
    void aRunReplacesItsOwnSectionAndKeepsEverythingElse() {
        String spliced = FailoverBenchmarkMain.splice(DOCUMENT, Scenario.GRACEFUL, "new graceful table\n");

        assertThat(spliced)
                .isEqualTo(DOCUMENT.replace("old graceful table", "new graceful table"))
                .contains("old kill table", "kill analysis", "graceful analysis");
    }

    @Test
    void aScenarioWithoutASectionIsAppendedBetweenItsMarkers() {
        String spliced = FailoverBenchmarkMain.splice(DOCUMENT, Scenario.DEFAULTS, "defaults table\n");

        assertThat(spliced)
                .startsWith(DOCUMENT)
                .endsWith("\n<!-- generated: defaults -->\ndefaults table\n<!-- end generated: defaults -->\n");
        assertThat(FailoverBenchmarkMain.splice(spliced, Scenario.DEFAULTS, "again\n"))
                .isEqualTo(spliced.replace("defaults table", "again"));
    }
}
