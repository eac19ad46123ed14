package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** What the groups use to see exclusion under contention: a counter that loses updates, and hold intervals. */
final class Contention {

    private Contention() {}

    /** Read, pause, write: loses updates unless the callers exclude each other. */
    static final class Counter {
        private long value;

        void increment() {
            long v = value;
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300));
            value = v + 1;
        }

        synchronized long get() {
            return value;
        }
    }

    /** A hold as one contender saw it: the time from acquisition to release, and its token. */
    record Interval(long start, long end, long token) {}

    /** No hold began before the one before it ended. */
    static void assertNoOverlap(List<Interval> intervals) {
        List<Interval> sorted = byStart(intervals);
        for (int i = 1; i < sorted.size(); i++) {
            Interval prev = sorted.get(i - 1);
            Interval cur = sorted.get(i);
            assertThat(cur.start)
                    .as("hold %d began before hold %d ended", i, i - 1)
                    .isGreaterThanOrEqualTo(prev.end);
        }
    }

    /** Each hold's token is greater than the token of the hold before it. */
    static void assertTokensIncrease(List<Interval> intervals) {
        List<Interval> sorted = byStart(intervals);
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i).token).as("token of hold %d", i).isGreaterThan(sorted.get(i - 1).token);
        }
    }

    private static List<Interval> byStart(List<Interval> intervals) {
        List<Interval> sorted = new ArrayList<>(intervals);
        sorted.sort((a, b) -> Long.compare(a.start, b.start));
        return sorted;
    }
}
