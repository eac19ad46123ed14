package io.lockkit.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The reconnect policy every provider's wake-up connection shares. */
class OutageTrackerTest {

    private final RuntimeException cause = new RuntimeException("connection refused");
    private final AtomicInteger alerts = new AtomicInteger();

    @Test
    void theFirstAttemptOfAnOutageIsAtOnceAndLaterOnesBackOffUpToTheLongest() {
        OutageTracker outages = new OutageTracker("wake-ups", Duration.ofMinutes(1), alerts::incrementAndGet);
        assertThat(outages.inOutage()).isFalse();
        assertThat(outages.failed(true, cause)).as("a working connection broke").isZero();
        assertThat(outages.inOutage()).isTrue();
        assertThat(outages.failedAtOnce(cause))
                .as("an attempt on a dead pooled connection")
                .isZero();
        long[] pauses = new long[6];
        for (int i = 0; i < pauses.length; i++) {
            pauses[i] = outages.failed(false, cause);
        }
        assertThat(pauses).containsExactly(25, 50, 100, 200, 200, 200);
        assertThat(outages.failedAtOnce(cause)).isZero();
        assertThat(outages.failed(false, cause))
                .as("backing off goes on where it was")
                .isEqualTo(200);
        assertThat(outages.failed(true, cause))
                .as("a connection that worked and broke again: a new outage")
                .isZero();
        assertThat(outages.failed(false, cause)).isEqualTo(25);
        assertThat(alerts).hasValue(0);
    }

    @Test
    void theFirstFailureWithNoOutageOnBeginsOneAndSuccessEndsIt() {
        OutageTracker outages = new OutageTracker("wake-ups", Duration.ofMinutes(1), alerts::incrementAndGet);
        assertThat(outages.over()).as("no outage to end").isFalse();
        assertThat(outages.failedAtOnce(cause)).isZero();
        assertThat(outages.inOutage()).isTrue();
        assertThat(outages.failed(false, cause)).isEqualTo(25);
        assertThat(outages.over()).isTrue();
        assertThat(outages.inOutage()).isFalse();
        assertThat(outages.over()).isFalse();
        assertThat(outages.failed(false, cause)).as("a new outage starts over").isZero();
    }

    @Test
    void waitersAreAlertedOncePerOutageWhenItHasLastedTwiceTheTimeout() {
        OutageTracker outages = new OutageTracker("wake-ups", Duration.ofNanos(1), alerts::incrementAndGet);
        outages.failed(true, cause);
        assertThat(alerts).as("not when it begins").hasValue(0);
        pastTwoNanos();
        outages.failed(false, cause);
        assertThat(alerts).hasValue(1);
        outages.failed(false, cause);
        assertThat(alerts).as("once per outage").hasValue(1);
        outages.over();
        outages.failed(false, cause);
        pastTwoNanos();
        outages.failed(false, cause);
        assertThat(alerts).as("and again in the next one").hasValue(2);

        OutageTracker longTimeout = new OutageTracker("wake-ups", Duration.ofMinutes(1), alerts::incrementAndGet);
        longTimeout.failed(true, cause);
        longTimeout.failed(false, cause);
        assertThat(alerts).as("not before twice the timeout").hasValue(2);
    }

    private static void pastTwoNanos() {
        long start = System.nanoTime();
        while (System.nanoTime() - start < 10_000) {
            Thread.onSpinWait(); // past 2 ns on any clock granularity
        }
    }
}
