package io.lockkit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MonitorCounterTest {

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void countsClientCommandsApartFromTheCommandsScriptsRun() {
        RedisAdmin admin = new RedisAdmin(redis);
        redis.command("SET", "before", "1");
        try (MonitorCounter monitor = new MonitorCounter(redis.host(), redis.port())) {
            monitor.begin(admin);
            redis.command(
                    "EVAL",
                    "redis.call('SET', KEYS[1], '1'); redis.call('PUBLISH', 'c', 'x'); return redis.call('GET', KEYS[1])",
                    "1",
                    "k");
            redis.command("DEL", "k");
            Map<String, Long> client = monitor.end(admin);
            assertThat(client).containsExactlyInAnyOrderEntriesOf(Map.of("eval", 1L, "del", 1L));
            assertThat(monitor.scriptCommands()).isEqualTo(3);
        }
    }

    @Test
    void commandstatsCountScriptCallsToo() {
        RedisAdmin admin = new RedisAdmin(redis);
        admin.resetStats();
        redis.command("EVAL", "return redis.call('HSET', KEYS[1], 'f', '1')", "1", "h");
        Map<String, Long> executed = RedisAdmin.executed(admin.commandCalls());
        assertThat(executed)
                .containsEntry("eval", 1L)
                .containsEntry("hset", 1L)
                .doesNotContainKeys("info", "config|resetstat");
    }
}
