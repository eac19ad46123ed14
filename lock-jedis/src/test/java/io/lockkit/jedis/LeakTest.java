package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.jedis.support.LeakWorkload;
import io.lockkit.jedis.support.LeakWorkload.Figures;
import io.lockkit.jedis.support.RedisState;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * After 100,000 lock/unlock cycles and 10,000 timed-out waits, threads, pub/sub channels, keys,
 * scheduled renewals and heap are back at their baseline. {@link SoakTest} runs the same for
 * minutes, outside CI.
 */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Leaks")
class LeakTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static final int THREADS = 8;

    @Test
    @DisplayName(
            "100,000 lock/unlock cycles and 10,000 timed-out waits leave threads, channels, keys, renewals and heap at their baseline")
    void cyclesAndTimedOutWaitsLeaveNothingBehind() throws Exception {
        RedisServer redis = REDIS.server();
        RedisState state = RedisState.of(redis);
        try (LeakWorkload work = new LeakWorkload(redis.uri(), state, "leak", THREADS)) {
            // Warm up: connections, the pub/sub thread, JIT; then let lingering subscriptions and fence keys go.
            work.cycles(2_000);
            work.timedOutWaits(200);
            Figures baseline = work.awaitIdle(Duration.ofSeconds(20));
            System.out.println("leak baseline:      " + baseline);

            long cycleMillis = work.cycles(100_000);
            Figures afterCycles = work.figures();
            System.out.printf(
                    "100,000 cycles on %d threads: %d ms (%.0f cycles/s)%n  right after: %s%n",
                    THREADS, cycleMillis, 100_000 * 1000.0 / cycleMillis, afterCycles);
            long waitMillis = work.timedOutWaits(10_000);
            Figures afterWaits = work.figures();
            System.out.printf(
                    "10,000 timed-out waits on %d threads: %d ms%n  right after: %s%n",
                    THREADS, waitMillis, afterWaits);

            Figures settled = work.awaitBaseline(baseline, Duration.ofSeconds(20));
            System.out.println("leak after settling: " + settled);
            long[] shared = work.sharedUpdates();
            assertThat(shared[0])
                    .as("updates of the shared counters under the lock")
                    .isEqualTo(shared[1]);
            assertThat(settled.renewCalls())
                    .as("the watchdog renewed the held locks meanwhile")
                    .isGreaterThan(baseline.renewCalls());
            assertThat(settled.keys()).isEqualTo(baseline.keys());
            assertThat(settled.redisChannels()).isEqualTo(baseline.redisChannels());
            assertThat(settled.waitedChannelSubscribers())
                    .as("PUBSUB NUMSUB of the locks waited for")
                    .isZero();
            assertThat(settled.pendingTasks()).isEqualTo(baseline.pendingTasks());
            assertThat(settled.lockkitThreads()).isEqualTo(baseline.lockkitThreads());
            assertThat(settled.usedHeap()).isLessThanOrEqualTo(baseline.usedHeap() + Figures.HEAP_MARGIN);
        }
    }
}
