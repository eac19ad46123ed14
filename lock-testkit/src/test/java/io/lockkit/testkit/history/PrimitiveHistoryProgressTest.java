package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The history's progress check: workers that stop acquiring (a deadlock, a name never freed) stop
 * the run and fail it, instead of running until its time is up. Two worker JVMs on a provider that
 * never grants anything.
 */
class PrimitiveHistoryProgressTest {

    @Test
    @DisplayName("a run whose workers never acquire stops as stalled and fails, at the progress bound")
    void runWithoutAcquisitionsFailsAsStalled() throws Exception {
        PrimitiveHistory.Result r = PrimitiveHistory.builder(PrimitiveHistory.Primitive.MULTI_LOCK)
                .provider(NeverGrants.class, "in-jvm")
                .workers(2, 1)
                .waitAtMost(Duration.ofMillis(200))
                .withoutWorkerFaults()
                .progressWithin(Duration.ofSeconds(1))
                .length(10, 1, Duration.ofSeconds(60))
                .build()
                .run();
        assertThat(r.stalls()).singleElement().asString().contains("after the workers started");
        assertThat(r.runMillis())
                .as("stopped at the stall, not at the run's time")
                .isLessThan(30_000);
        assertThat(r.violations()).as("nothing granted, nothing violated").isEmpty();
        assertThatThrownBy(r::assertSafe)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("acquisitions stopped");
    }

    /** An in-JVM provider whose every attempt finds the lock busy: no worker ever acquires. */
    public static final class NeverGrants implements Function<String, LockProvider> {
        @Override
        public LockProvider apply(String address) {
            return new ForwardingLockProvider(new LocalLockProvider()) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return Acquisition.busy(Duration.ofMillis(50));
                }
            };
        }
    }
}
