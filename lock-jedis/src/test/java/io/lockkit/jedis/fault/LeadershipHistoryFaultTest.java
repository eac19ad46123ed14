package io.lockkit.jedis.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.history.LeadershipHistory;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kit's multi-process leadership check ({@link LeadershipHistory}) on Redis: three worker JVMs
 * campaign for one name while the leader's JVM is paused past its lease and killed, and Redis is
 * restarted and stalled past the lease, two rounds. Redis runs with its append-only file synced on
 * every write, so a restart keeps the leader's hold (a restart that loses data frees the lock under
 * a leader that hears of it only at its next renewal: the case fencing tokens are for, which the
 * lock history test covers). A negative control, leaders that take the lock and never look at it
 * again, must be rejected.
 */
@Tag("fault")
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Fault: leadership history of 3 worker JVMs on Redis under pauses, kills, restarts and stalls")
class LeadershipHistoryFaultTest {

    @RegisterExtension
    static final RedisExtension REDIS = Faults.localRedis("--appendonly", "yes", "--appendfsync", "always");

    private static final Duration LEASE = Duration.ofSeconds(2);

    @AfterEach
    void resume() {
        Faults.resume(REDIS.server());
    }

    @Test
    @DisplayName(
            "no two terms work at once, terms increase, deposed leaders are told first, a leader works again within lease + 2 s of each fault")
    void leadershipHistoryIsSafeAndLive() throws Exception {
        RedisServer redis = REDIS.server();
        LeadershipHistory.Result r = LeadershipHistory.builder()
                .provider(RedisLeaderWorkers.class, redis.uri())
                .name(Faults.name("leadership-history"))
                .lease(LEASE)
                .backendFault("Redis restarted", redis::restart)
                .backendFault("Redis stalled past the lease", () -> Faults.stall(redis, LEASE.plusMillis(500)))
                .cleanUp(() -> Faults.resume(redis))
                .build()
                .run();
        System.out.println(r.summary());
        r.assertSafe();
        assertThat(r.report().lostHoldOverlaps())
                .as("terms whose hold Redis lost")
                .isZero();
        assertThat(r.terms().size()).as("terms").isGreaterThanOrEqualTo(5);
    }

    @Test
    @DisplayName(
            "negative control: leaders that never check their hold keep working beside their successor, and are rejected")
    void naiveLeadersAreRejected() throws Exception {
        RedisServer redis = REDIS.server();
        LeadershipHistory.Result r = LeadershipHistory.builder()
                .provider(RedisLeaderWorkers.class, redis.uri())
                .name(Faults.name("naive-history"))
                .lease(LEASE)
                .rounds(1)
                .naive()
                .build()
                .run();
        System.out.println("negative control: " + r.summary());
        assertThat(r.report().passes()).as("the naive history passes").isFalse();
        assertThat(r.report().overlaps())
                .as("a paused leader working beside its successor")
                .isNotEmpty();
        assertThat(r.report().toldLate()).as("deposed leaders never told").isNotEmpty();
    }
}
