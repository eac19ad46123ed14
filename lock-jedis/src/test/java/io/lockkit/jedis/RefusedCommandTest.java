package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
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

/**
 * A command Redis refuses for a reason other than reachability (an ACL without the command, a key
 * of the wrong type) is a plain {@link LockException} carrying Redis' answer: trying again will
 * not help, so it is not a {@link BackendUnavailableException}. Real Redis, real ACL users.
 */
@DisplayName("Commands Redis refuses")
class RefusedCommandTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Duration SHORT = Duration.ofMillis(500);

    private static Map<String, ThrowingCallable> calls(JedisLockProvider p, String name) {
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("tryAcquire", () -> p.tryAcquire(new LockRequest(name, "c:o", Duration.ofSeconds(5), Duration.ZERO)));
        calls.put("release", () -> p.release(name, "c:o"));
        calls.put("forceRelease", () -> p.forceRelease(name));
        calls.put("renew", () -> p.renew(List.of(new Renewal(name, "c:o", Duration.ofSeconds(5)))));
        calls.put("inspect", () -> p.inspect(name));
        return calls;
    }

    @Test
    @DisplayName(
            "an ACL user without the commands the scripts run gets LockException with Redis' refusal from every call")
    void aclWithoutTheNeededCommandsIsALockException(RedisServer redis) {
        // Scripts may be called, but the commands inside them (HMGET, HSET, PEXPIRE, ...) may not.
        redis.command(
                "ACL",
                "SETUSER",
                "refused",
                "reset",
                "on",
                ">pw-refused",
                "~*",
                "+evalsha",
                "+eval",
                "+ping",
                "+client");
        JedisLockProvider p = JedisLockProvider.builder()
                .uri("redis://refused:pw-refused@127.0.0.1:" + redis.port())
                .timeout(SHORT)
                .connectTimeout(SHORT)
                .build();
        try {
            calls(p, "acl:refused")
                    .forEach((call, run) -> assertThat(catchThrowable(run))
                            .as(call)
                            .isInstanceOf(LockException.class)
                            .isNotInstanceOf(BackendUnavailableException.class)
                            // Redis 7.0 words a refusal inside a script as "ERR The user executing the script can't run
                            // this command"
                            .hasMessageMatching("(?s).*(NOPERM|can't run this command).*")
                            .hasMessageContaining("'acl:refused'"));
        } finally {
            p.close();
            redis.command("ACL", "DELUSER", "refused");
        }
    }

    @Test
    @DisplayName(
            "a lock key holding a value of another type gets LockException with WRONGTYPE, and the value is untouched")
    void keyOfTheWrongTypeIsALockException(RedisServer redis) {
        String key = "lockkit:{wrongtype}"; // the lock hash of "wrongtype" under the default prefix
        redis.command("SET", key, "not a hash");
        JedisLockProvider p =
                JedisLockProvider.builder().uri(redis.uri()).timeout(SHORT).build();
        try {
            calls(p, "wrongtype")
                    .forEach((call, run) -> assertThat(catchThrowable(run))
                            .as(call)
                            .isInstanceOf(LockException.class)
                            .isNotInstanceOf(BackendUnavailableException.class)
                            .hasMessageContaining("WRONGTYPE")
                            .hasMessageContaining("'wrongtype'"));
            assertThat(redis.command("GET", key)).isEqualTo("not a hash");
        } finally {
            p.close();
            redis.command("DEL", key);
        }
    }
}
