package io.lockkit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TextTableTest {

    @Test
    void markdownAlignsFiguresRightAndWritesAnEmptyCornerCellAsOneSpace() {
        TextTable table = TextTable.of("", "lockkit", "Redisson")
                .rightFrom(1)
                .row("P1 p50", "26.8 µs", "56.7 µs")
                .row("P5", "", "n/a");

        assertThat(table.markdown())
                .isEqualTo("| | lockkit | Redisson |\n" + "|---|---:|---:|\n" + "| P1 p50 | 26.8 µs | 56.7 µs |\n"
                        + "| P5 |  | n/a |\n");
        assertThat(table.rows()).isEqualTo(2);
    }

    @Test
    void plainPadsEachColumnToItsWidestCellAndLeavesNoTrailingBlanks() {
        TextTable table = TextTable.of("metric", "value")
                .right(1)
                .row("pairs/s", "85,147")
                .row("p50", "1");

        assertThat(table.plain()).isEqualTo("metric    value\n" + "pairs/s  85,147\n" + "p50           1\n");
    }

    @Test
    void aRowOfTheWrongWidthIsRejectedWithItsCells() {
        TextTable table = TextTable.of("a", "b");

        assertThatThrownBy(() -> table.row("only one"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cells must be one per column (2), were 1: [only one]");
        assertThatThrownBy(() -> table.rightFrom(2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column must be one of the table's, 0 to 1, was 2");
        assertThatThrownBy(() -> table.right(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(TextTable::of).isInstanceOf(IllegalArgumentException.class);
    }
}
