package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.inject.se.SeContainer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("the leader-only job of the leadership guide runs on the leader only, and moves with the leadership")
class ReportSchedulerTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @AfterEach
    void clearConfig() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("of two instances timed alike, one writes; after it stops, the other writes with a later term")
    void onlyTheLeaderWrites(RedisServer redis) {
        Reports.WRITES.clear();
        Lockkit.useRedis(redis, "lockkit.leadership.reports.lease", "600ms");
        SeContainer a = Lockkit.start("reports-a", ReportScheduler.class, Reports.class);
        SeContainer b = Lockkit.start("reports-b", ReportScheduler.class, Reports.class);
        try {
            ReportScheduler inA = a.select(ReportScheduler.class).get();
            ReportScheduler inB = b.select(ReportScheduler.class).get();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                inA.nightly();
                inB.nightly();
                return !Reports.WRITES.isEmpty();
            });
            Reports.WRITES.clear();
            inA.nightly();
            inB.nightly();
            assertThat(Reports.WRITES).as("one of the two timers wrote").hasSize(1);
            long first = Reports.WRITES.get(0);
            Reports.WRITES.clear();
            inA.nightly();
            boolean aLeads = !Reports.WRITES.isEmpty();
            (aLeads ? a : b).close();
            ReportScheduler survivor = aLeads ? inB : inA;
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                survivor.nightly();
                return Reports.WRITES.stream().anyMatch(t -> t > first);
            });
            assertThat(Reports.WRITES).allMatch(t -> t >= first);
        } finally {
            for (SeContainer app : List.of(a, b)) {
                if (app.isRunning()) {
                    app.close();
                }
            }
        }
    }
}
