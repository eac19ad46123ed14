package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.RedisClient;

/**
 * The closed-provider contract at the SPI: once {@code close()} ran, every call of
 * {@link JedisLockProvider} throws a plain {@link LockException} naming the lock, whatever the
 * provider had started (wake-ups, waits in the queue) and whether it owned its client.
 */
@DisplayName("A closed JedisLockProvider")
class ClosedProviderTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final WakeUpListener IGNORED = new WakeUpListener() {
        @Override
        public void released(String grantee) {}

        @Override
        public void missedNotifications() {}
    };

    /** Every SPI call but close() and capabilities(), by name. */
    private static Map<String, ThrowingCallable> calls(LockProvider p, String name) {
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("tryAcquire", () -> p.tryAcquire(new LockRequest(name, "c:o", Duration.ofSeconds(5), Duration.ZERO)));
        calls.put(
                "tryAcquire, waiting",
                () -> p.tryAcquire(new LockRequest(name, "c:o", Duration.ofSeconds(5), Duration.ofSeconds(5), 7)));
        calls.put(
                "tryAcquire, shared",
                () -> p.tryAcquire(new LockRequest(
                        name,
                        "c:o",
                        Duration.ofSeconds(5),
                        Duration.ZERO,
                        0,
                        Claim.shared(1, 3).fairly())));
        calls.put("release", () -> p.release(name, "c:o"));
        calls.put("abandon", () -> p.abandon(name, "c:o", 7));
        calls.put("forceRelease", () -> p.forceRelease(name));
        calls.put("renew", () -> p.renew(List.of(new Renewal(name, "c:o", Duration.ofSeconds(5)))));
        calls.put("renew of nothing", () -> p.renew(List.of()));
        calls.put("inspect", () -> p.inspect(name));
        calls.put("subscribe", () -> p.subscribe(name, IGNORED).close());
        return calls;
    }

    @ParameterizedTest(name = "wake-ups started before the close: {0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("throws LockException naming the lock from every call, never BackendUnavailableException")
    void everyCallThrowsLockException(boolean started, RedisServer redis) {
        JedisLockProvider p = JedisLockProvider.create(redis.uri());
        String name = "closed:" + started;
        if (started) {
            // a wait queued in Redis and a live subscription: close() has something to undo
            assertThat(p.tryAcquire(new LockRequest(name, "c:holder", Duration.ofSeconds(5), Duration.ZERO))
                            .isAcquired())
                    .isTrue();
            assertThat(p.tryAcquire(new LockRequest(name, "c:waiter", Duration.ofSeconds(5), Duration.ofSeconds(5), 1))
                            .isAcquired())
                    .isFalse();
            p.subscribe(name, IGNORED);
        }
        p.close();
        calls(p, name).forEach((call, run) -> {
            Throwable t = catchThrowable(run);
            assertThat(t)
                    .as(call)
                    .isExactlyInstanceOf(LockException.class)
                    .hasMessageContaining("the Redis lock provider is closed");
            if (!call.equals("renew of nothing")) {
                assertThat(t).as(call).hasMessageContaining("'" + name + "'");
            }
        });
        p.close(); // idempotent
        assertThat(p.capabilities())
                .as("a description, still answered")
                .containsExactlyInAnyOrder(
                        LockProvider.Capability.FENCING_TOKENS,
                        LockProvider.Capability.FORCE_RELEASE,
                        LockProvider.Capability.EXPLICIT_LEASE,
                        LockProvider.Capability.INSPECTION,
                        LockProvider.Capability.LISTING,
                        LockProvider.Capability.SHARED_HOLDS,
                        LockProvider.Capability.FAIR_QUEUE);
        if (started) {
            JedisLockProvider other = JedisLockProvider.create(redis.uri());
            try {
                assertThat(other.forceRelease(name))
                        .as("close left the hold alone")
                        .isTrue();
            } finally {
                other.close();
            }
        }
    }

    @Test
    @DisplayName("over a client the application owns and keeps open, also throws LockException")
    void closedOverAnApplicationsClient(RedisServer redis) {
        try (RedisClient client = RedisClient.create(redis.host(), redis.port())) {
            JedisLockProvider p = JedisLockProvider.create(client);
            p.close();
            calls(p, "app-client")
                    .forEach((call, run) -> assertThat(catchThrowable(run))
                            .as(call)
                            .isExactlyInstanceOf(LockException.class)
                            .isNotInstanceOf(BackendUnavailableException.class));
            assertThat(client.ping()).as("the application's client stays open").isEqualTo("PONG");
        }
    }
}
