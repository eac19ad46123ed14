package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.jedis.support.LeakWorkload;
import io.lockkit.jedis.support.LeakWorkload.Figures;
import io.lockkit.jedis.support.RedisState;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LeakTest}'s workload for ten minutes (or {@code -Dlockkit.soak.minutes=N}), with the
 * baseline checked after every minute. Opt-in, never part of CI:
 * {@code mvn -B test -pl lock-jedis -Dtest=SoakTest -Dlockkit.soak=true [-Dlockkit.soak.minutes=10]}.
 */
@EnabledIfSystemProperty(named = "lockkit.soak", matches = "true", disabledReason = "opt-in: -Dlockkit.soak=true")
@DisplayName("Soak")
class SoakTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    @DisplayName(
            "minutes of lock/unlock cycles and timed-out waits leave threads, channels, keys, renewals and heap at their baseline after every minute")
    void soak() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("lockkit.soak.minutes", "10"));
        RedisServer redis = REDIS.server();
        RedisState state = RedisState.of(redis);
        List<Figures> checkpoints = new ArrayList<>();
        long cycles = 0;
        long waits = 0;
        try (LeakWorkload work = new LeakWorkload(redis.uri(), state, "soak", LeakTest.THREADS)) {
            work.cycles(2_000);
            work.timedOutWaits(200);
            Figures baseline = work.awaitIdle(Duration.ofSeconds(20));
            System.out.println("soak baseline: " + baseline);
            long end = System.nanoTime() + (long) (minutes * 60e9);
            while (System.nanoTime() - end < 0) {
                long minuteEnd = Math.min(end, System.nanoTime() + 60_000_000_000L);
                while (System.nanoTime() - minuteEnd < 0) {
                    work.cycles(20_000);
                    work.timedOutWaits(2_000);
                    cycles += 20_000;
                    waits += 2_000;
                }
                Figures now = work.awaitBaseline(baseline, Duration.ofSeconds(30));
                checkpoints.add(now);
                System.out.printf("soak after %,d cycles and %,d timed-out waits: %s%n", cycles, waits, now);
            }
            long[] shared = work.sharedUpdates();
            assertThat(shared[0])
                    .as("updates of the shared counters under the lock")
                    .isEqualTo(shared[1]);
            Figures last = checkpoints.get(checkpoints.size() - 1);
            assertThat(last.usedHeap()).isLessThanOrEqualTo(baseline.usedHeap() + Figures.HEAP_MARGIN);
            assertThat(last.keys()).isEqualTo(baseline.keys());
            assertThat(last.redisChannels()).isEqualTo(baseline.redisChannels());
            assertThat(last.lockkitThreads()).isEqualTo(baseline.lockkitThreads());
            assertThat(last.pendingTasks()).isEqualTo(baseline.pendingTasks());
        }
    }
}
