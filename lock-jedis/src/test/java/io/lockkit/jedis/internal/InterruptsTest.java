package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/** A caller's interrupt is kept away from Jedis calls and handed back afterwards. */
class InterruptsTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void callRunsWithTheInterruptClearedAndTheStatusIsSetAgainAfter() {
        Thread.currentThread().interrupt();
        boolean seenInside = Interrupts.setAside(() -> Thread.currentThread().isInterrupted());
        assertThat(seenInside).as("interrupt status inside the call").isFalse();
        assertThat(Thread.interrupted()).as("interrupt status after the call").isTrue();
    }

    @Test
    void callThatFailedBecauseOfAnInterruptIsMadeAgainAndTheInterruptKept() {
        AtomicInteger calls = new AtomicInteger();
        String result = Interrupts.setAside(() -> {
            if (calls.incrementAndGet() == 1) {
                // as Jedis reports a pool wait cut short by an interrupt
                throw new JedisException("Could not get a resource from the pool", new InterruptedException());
            }
            return "answered";
        });
        assertThat(result).isEqualTo("answered");
        assertThat(calls).hasValue(2);
        assertThat(Thread.interrupted()).as("interrupt status after the call").isTrue();
    }

    @Test
    void callThatRestoredTheInterruptItFailedOnIsMadeAgain() {
        AtomicInteger calls = new AtomicInteger();
        String result = Interrupts.setAside(() -> {
            if (calls.incrementAndGet() == 1) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("gave up waiting");
            }
            return "answered";
        });
        assertThat(result).isEqualTo("answered");
        assertThat(Thread.interrupted()).isTrue();
    }

    @Test
    void otherFailuresAreThrownAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> Interrupts.setAside(() -> {
                    calls.incrementAndGet();
                    throw new JedisConnectionException("refused");
                }))
                .isInstanceOf(JedisConnectionException.class);
        assertThat(calls).hasValue(1);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void interruptsThatKeepComingEndInTheFailureAfterAFewAttempts() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> Interrupts.setAside(() -> {
                    calls.incrementAndGet();
                    throw new JedisException("interrupted", new InterruptedException());
                }))
                .isInstanceOf(JedisException.class);
        assertThat(calls).hasValue(4);
        assertThat(Thread.interrupted()).isTrue();
    }
}
