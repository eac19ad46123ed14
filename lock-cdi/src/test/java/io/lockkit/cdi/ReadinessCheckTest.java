package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import jakarta.enterprise.inject.se.SeContainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponse.Status;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the lockkit readiness check (MicroProfile Health) in CDI SE")
class ReadinessCheckTest {

    /** A Redis process of the test's own (never a shared server or a container): the tests stop and stall it. */
    private static final RedisFixture FIXTURE =
            RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();

    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        Lockkit.clearConfig();
    }

    private SeContainer start(String id) {
        SeContainer container = Lockkit.start(id, LockUser.class);
        closeAfter.add(container::close);
        return container;
    }

    private static HealthCheck readiness(SeContainer container) {
        return container.select(HealthCheck.class, Readiness.Literal.INSTANCE).get();
    }

    private static Map<String, Object> data(HealthCheckResponse response) {
        return response.getData().orElseThrow();
    }

    @Test
    @DisplayName("is found by its @Readiness qualifier: UP with Redis, DOWN once Redis stops, UP again when it returns")
    void followsRedisStoppingAndComingBack() throws Exception {
        RedisServer redis = FIXTURE.start();
        closeAfter.add(redis);
        int port = redis.port();
        Lockkit.useRedis(redis, "lockkit.health.timeout", "1s", "lockkit.redis.timeout", "1s");
        SeContainer container = start("health-stop");
        HealthCheck check = readiness(container);

        HealthCheckResponse up = check.call();
        assertThat(up.getName()).isEqualTo("lockkit");
        assertThat(up.getStatus()).as("%s", data(up)).isEqualTo(Status.UP);
        assertThat(data(up))
                .containsEntry("activeHolds", 0L)
                .containsEntry("lossesLastMinute", 0L)
                .containsEntry("watchdog", "IDLE")
                .containsKey("probeLatencyMicros")
                .doesNotContainKey("reason");
        assertThat((String) data(up).get("backend")).contains(Integer.toString(port));

        LockUser user = container.select(LockUser.class).get();
        try (LockHandle hold = user.locks().acquire("report", LockOptions.noWait())) {
            assertThat(hold.isValid()).isTrue();
            assertThat(data(check.call())).containsEntry("activeHolds", 1L).containsEntry("watchdog", "RUNNING");
        }

        redis.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> check.call().getStatus() == Status.DOWN);
        HealthCheckResponse down = check.call();
        assertThat(data(down)).doesNotContainKey("probeLatencyMicros").containsKey("reason");
        assertThat((String) data(down).get("reason")).startsWith("the backend did not answer");

        RedisServer back = FIXTURE.startLocal(port, List.of());
        closeAfter.add(back);
        await().atMost(Duration.ofSeconds(15)).until(() -> check.call().getStatus() == Status.UP);
        assertThat(data(check.call())).doesNotContainKey("reason");
    }

    @Test
    @DisplayName("a stalled Redis (SIGSTOP) is DOWN within the probe timeout, and UP once it answers again")
    void stalledRedisIsDownWithinTheProbeTimeout() throws Exception {
        RedisServer redis = FIXTURE.start();
        closeAfter.add(redis);
        Lockkit.useRedis(redis, "lockkit.health.timeout", "500ms", "lockkit.redis.timeout", "3s");
        HealthCheck check = readiness(start("health-stall"));
        assertThat(check.call().getStatus()).isEqualTo(Status.UP);

        long pid = redis.pid().orElseThrow();
        signal("STOP", pid);
        try {
            long start = System.nanoTime();
            HealthCheckResponse stalled = check.call();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf(
                    "readiness with Redis stalled: DOWN after %d ms (probe timeout 500 ms, Redis timeout 3 s)%n",
                    tookMillis);
            assertThat(stalled.getStatus()).isEqualTo(Status.DOWN);
            assertThat(data(stalled)).containsEntry("reason", "the backend did not answer within PT0.5S");
            assertThat(tookMillis)
                    .as("answered at the probe timeout, not at Redis' 3 s timeout")
                    .isLessThan(2_500);
        } finally {
            signal("CONT", pid);
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> check.call().getStatus() == Status.UP);
    }

    @Test
    @DisplayName("losses are data; more in the last minute than lockkit.health.max-losses-per-minute make it DOWN")
    void lossesAboveTheConfiguredLimitAreDown() throws Exception {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.health.max-losses-per-minute", "1"));
        SeContainer container = start("health-losses");
        HealthCheck check = readiness(container);
        LockUser user = container.select(LockUser.class).get();

        LockHandle first = user.locks()
                .acquire(
                        "lapses-1",
                        LockOptions.builder()
                                .noWait()
                                .lease(Duration.ofMillis(50))
                                .build());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> first.lost().toCompletableFuture().isDone());
        HealthCheckResponse oneLoss = check.call();
        assertThat(oneLoss.getStatus()).as("%s", data(oneLoss)).isEqualTo(Status.UP);
        assertThat(data(oneLoss)).containsEntry("lossesLastMinute", 1L);

        LockHandle second = user.locks()
                .acquire(
                        "lapses-2",
                        LockOptions.builder()
                                .noWait()
                                .lease(Duration.ofMillis(50))
                                .build());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> second.lost().toCompletableFuture().isDone());
        HealthCheckResponse twoLosses = check.call();
        assertThat(twoLosses.getStatus()).isEqualTo(Status.DOWN);
        assertThat(data(twoLosses))
                .containsEntry("lossesLastMinute", 2L)
                .containsKey("probeLatencyMicros")
                .containsEntry(
                        "reason",
                        "2 holds lost in the last minute, more than lockkit.health.max-losses-per-minute = 1");
    }

    @Test
    @DisplayName("a bad health setting makes the check DOWN naming the key, not the deployment fail")
    void badSettingIsDownNamingTheKey() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.health.timeout", "0s"));
        HealthCheckResponse response = readiness(start("health-bad-setting")).call();
        assertThat(response.getStatus()).isEqualTo(Status.DOWN);
        assertThat((String) data(response).get("reason"))
                .contains("lockkit.health.timeout = 'PT0S'")
                .contains("must be positive");
    }

    @Test
    @DisplayName("lockkit.health.enabled=false keeps it UP without asking the backend")
    void disabledCheckIsUpWithoutProbing() {
        Lockkit.useConfig(
                Map.of("lockkit.provider", "local", "lockkit.health.enabled", "false", "lockkit.startup", "lazy"));
        SeContainer container = start("health-disabled");
        HealthCheckResponse response = readiness(container).call();
        assertThat(response.getStatus()).isEqualTo(Status.UP);
        assertThat(data(response)).containsOnly(Map.entry("reason", "not checked: lockkit.health.enabled=false"));
    }

    /** Sends SIGSTOP or SIGCONT to the redis-server this test started, and for SIGSTOP waits until the kernel says it stopped. */
    private static void signal(String signal, long pid) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            assertThat(kill.waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
            if (signal.equals("STOP")) {
                await().atMost(Duration.ofSeconds(5))
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> {
                            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                            return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
                        });
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
