package io.lockkit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void medianOfAnOddCountIsTheMiddleValue() {
        assertThat(Stats.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    }

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(Stats.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
    }

    @Test
    void medianIgnoresMissingValues() {
        assertThat(Stats.median(Arrays.asList(Double.NaN, 5.0, null))).isEqualTo(5.0);
        assertThat(Stats.median(List.of())).isNaN();
    }

    @Test
    void percentilesUseTheNearestRank() {
        Stats.Samples s = new Stats.Samples();
        for (int i = 100; i >= 1; i--) {
            s.add(i);
        }
        assertThat(s.percentile(50)).isEqualTo(50);
        assertThat(s.percentile(99)).isEqualTo(99);
        assertThat(s.percentile(100)).isEqualTo(100);
        assertThat(s.max()).isEqualTo(100);
    }

    @Test
    void mergedSamplesKeepEveryValue() {
        Stats.Samples a = new Stats.Samples();
        Stats.Samples b = new Stats.Samples();
        for (int i = 0; i < 2000; i++) {
            a.add(i);
            b.add(-i);
        }
        assertThat(Stats.Samples.merge(List.of(a, b)).count).isEqualTo(4000);
    }
}
