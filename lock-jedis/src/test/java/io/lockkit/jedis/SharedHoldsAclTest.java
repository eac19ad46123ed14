package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a provider's ACL user needs for shared holds and fair claims beyond
 * {@link SecurityTest#MINIMAL_COMMANDS}: {@code hgetall} (the shared scripts read every holder of
 * a name), and nothing else. Found and held the way SecurityTest holds the minimal list: every
 * shared and fair path run under the ACL, and {@code ACL LOG} read.
 */
class SharedHoldsAclTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final String USER = "lockapp-shared";
    private static final String PASSWORD = "s3cret-for-shared-holds";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private RedisServer redis;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        int[] v = Arrays.stream(redis.version().split("\\."))
                .limit(2)
                .mapToInt(Integer::parseInt)
                .toArray();
        assumeTrue(v[0] > 6 || v[0] == 6 && v[1] >= 2, "ACL channel permissions need Redis 6.2, this is " + v[0]);
    }

    @AfterEach
    void dropUser() {
        redis.command("ACL", "DELUSER", USER);
    }

    @Test
    @DisplayName("shared holds and fair claims run under the minimal ACL plus +hgetall, and need that one")
    void sharedHoldsNeedHgetallOnTopOfTheMinimalAcl() {
        List<String> commands = new ArrayList<>(SecurityTest.MINIMAL_COMMANDS);
        int[] v = Arrays.stream(redis.version().split("\\."))
                .limit(2)
                .mapToInt(Integer::parseInt)
                .toArray();
        if (v[0] < 7 || v[0] == 7 && v[1] >= 2) {
            commands.add("client|setinfo"); // Jedis sends it; Redis 7.0 and 7.1 reject the rule
        }
        aclUser(commands);
        List<Throwable> without = exerciseSharedPaths();
        assertThat(denials()).as("ACL LOG without +hgetall").contains("command:hgetall");
        assertThat(without).isNotEmpty();

        commands.add("hgetall");
        aclUser(commands);
        List<Throwable> with = exerciseSharedPaths();
        assertThat(denials()).as("ACL LOG with +hgetall").isEmpty();
        assertThat(with).isEmpty();
    }

    private void aclUser(List<String> commands) {
        List<String> args = new ArrayList<>(List.of(
                "ACL", "SETUSER", USER, "reset", "resetchannels", "on", ">" + PASSWORD, "~lockkit:*", "&lockkit:*"));
        commands.forEach(c -> args.add("+" + c));
        redis.command(args.toArray(String[]::new));
        redis.command("ACL", "LOG", "RESET");
    }

    /** Refusals that {@code ACL LOG} recorded for the user since the last reset, as "reason:object". */
    private List<String> denials() {
        List<String> denials = new ArrayList<>();
        for (Object entry : (List<?>) redis.command("ACL", "LOG")) {
            List<?> kv = (List<?>) entry;
            Map<String, Object> fields = new LinkedHashMap<>();
            for (int i = 0; i + 1 < kv.size(); i += 2) {
                fields.put(String.valueOf(kv.get(i)), kv.get(i + 1));
            }
            if (USER.equals(fields.get("username")) && !"auth".equals(fields.get("reason"))) {
                denials.add(fields.get("reason") + ":" + fields.get("object"));
            }
        }
        return denials;
    }

    /** One step of a path: its failure is collected, the path goes on. */
    private interface Step {
        void run();
    }

    /**
     * Readers (reentrant, waiting behind a writer, a queued writer, a downgrade, renewal, inspection),
     * a semaphore (stored capacity, a fair waiter, a refused claim, force release) and a fair lock
     * (hand-over, abandon, a shared claim first in the queue); failures collected.
     */
    private List<Throwable> exerciseSharedPaths() {
        List<Throwable> failures = new ArrayList<>();
        String uri = "redis://" + USER + ":" + PASSWORD + "@127.0.0.1:" + redis.port();
        String run = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        Claim read = Claim.shared(1, Claim.UNBOUNDED);
        try (JedisLockProvider p = JedisLockProvider.builder()
                .uri(uri)
                .timeout(Duration.ofSeconds(2))
                .build()) {
            String r = "acl-read-" + run;
            String s = "acl-sem-" + run;
            String f = "acl-fair-" + run;
            List<Step> steps = List.of(
                    () -> attempt(p, r, "a:t1r", read, Duration.ZERO),
                    () -> attempt(p, r, "a:t1r", read, Duration.ZERO),
                    () -> attempt(p, r, "b:t1r", read, Duration.ZERO),
                    () -> attempt(p, r, "w:t1", Claim.EXCLUSIVE, WAIT),
                    () -> attempt(p, r, "c:t1r", read, WAIT),
                    () -> p.inspect(r),
                    () -> p.renew(List.of(new Renewal(r, "b:t1r", LEASE))),
                    () -> p.release(r, "a:t1r"),
                    () -> p.release(r, "a:t1r"),
                    () -> p.release(r, "b:t1r"),
                    () -> attempt(p, r, "w:t1", Claim.EXCLUSIVE, WAIT),
                    () -> attempt(p, r, "w:t1r", read.beside("w:t1"), Duration.ZERO),
                    () -> p.renew(List.of(new Renewal(r, "w:t1", LEASE))),
                    () -> p.release(r, "w:t1"),
                    () -> p.release(r, "w:t1r"),
                    () -> attempt(p, s, "a:h1", Claim.shared(2, 3), Duration.ZERO),
                    () -> attempt(p, s, "b:h1", Claim.shared(2, 3).fairly(), WAIT),
                    () -> attempt(p, s, "c:h1", Claim.shared(4, 3), Duration.ZERO),
                    () -> p.release(s, "a:h1"),
                    () -> attempt(p, s, "b:h1", Claim.shared(2, 3).fairly(), WAIT),
                    () -> p.forceRelease(s),
                    () -> attempt(p, f, "a:t1", Claim.EXCLUSIVE.fairly(), Duration.ZERO),
                    () -> attempt(p, f, "s:h1", Claim.shared(1, 2).fairly(), WAIT),
                    () -> attempt(p, f, "b:t1", Claim.EXCLUSIVE.fairly(), WAIT),
                    () -> attempt(p, f, "c:t1", Claim.EXCLUSIVE.fairly(), WAIT),
                    () -> p.abandon(f, "c:t1", 0),
                    () -> p.release(f, "a:t1"),
                    () -> attempt(p, f, "s:h1", Claim.shared(1, 2).fairly(), WAIT),
                    () -> p.release(f, "s:h1"),
                    () -> attempt(p, f, "b:t1", Claim.EXCLUSIVE.fairly(), WAIT),
                    () -> p.release(f, "b:t1"));
            for (Step step : steps) {
                try {
                    step.run();
                } catch (IllegalArgumentException expected) {
                    // the claim of 4 permits of 3: refused by the script, which ran
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
        }
        return failures;
    }

    private static void attempt(JedisLockProvider p, String name, String owner, Claim claim, Duration wait) {
        var unused = p.tryAcquire(new LockRequest(name, owner, LEASE, wait, 0, claim));
    }
}
