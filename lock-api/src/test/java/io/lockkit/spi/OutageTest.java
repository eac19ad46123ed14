package io.lockkit.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The reconnect policy every provider's wake-up connection shares. */
class OutageTest {

    private final RuntimeException cause = new RuntimeException("connection refused");

    @Test
    void attemptsThatBackOffDoubleFromTheFirstPauseUpToTheLongest() {
        Outage outage = Outage.begin("wake-ups", "broke", Duration.ofSeconds(2), cause);
        assertThat(outage.failed(false, cause)).isZero();
        assertThat(outage.failed(false, cause)).isZero();
        long[] pauses = new long[6];
        for (int i = 0; i < pauses.length; i++) {
            pauses[i] = outage.failed(true, cause);
        }
        assertThat(pauses).containsExactly(25, 50, 100, 200, 200, 200);
        assertThat(outage.failed(false, cause))
                .as("an attempt on a dead pooled connection")
                .isZero();
        assertThat(outage.failed(true, cause))
                .as("backing off goes on where it was")
                .isEqualTo(200);
    }

    @Test
    void waitersAreAlertedOnceWhenTheOutageHasLastedTwiceTheTimeout() {
        Outage longTimeout = Outage.begin("wake-ups", "broke", Duration.ofMinutes(1), cause);
        assertThat(longTimeout.alertDue()).isFalse();

        Outage shortTimeout = Outage.begin("wake-ups", "broke", Duration.ofNanos(1), cause);
        long start = System.nanoTime();
        while (System.nanoTime() - start < 10_000) {
            Thread.onSpinWait(); // past 2 ns on any clock granularity
        }
        assertThat(shortTimeout.alertDue()).isTrue();
        assertThat(shortTimeout.alertDue()).as("once per outage").isFalse();
    }
}
