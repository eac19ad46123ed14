package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockInfo;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A measurement, not a timed test (off unless {@code -Dlockkit.measure.listing=true}): how long
 * {@code factory.locks("bench:")} takes over 100,000 held locks on a local Redis (memory is one
 * page by construction: the stream buffers one page of at most 500 entries). The locks are written by a server-side loop in the provider's hash layout
 * (holder, hold count, token, lease), which is what a listing reads; printed, not asserted.
 *
 * <pre>mvn -pl lock-jedis -am verify -Dtest=ListingScaleMeasurement -Dlockkit.measure.listing=true -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
@EnabledIfSystemProperty(named = "lockkit.measure.listing", matches = "true")
class ListingScaleMeasurement {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final int LOCKS = 100_000;

    @Test
    @DisplayName("listing 100,000 held locks: time")
    void listHundredThousandLocks() {
        RedisServer redis = REDIS.server();
        String fill = "for i = 1, tonumber(ARGV[1]) do "
                + "local k = 'lockkit:{bench:' .. i .. '}' "
                + "redis.call('HSET', k, '~o', 'c1:h' .. i, 'c1:h' .. i, '1', '~t', tostring(1000 + i)) "
                + "redis.call('PEXPIRE', k, 600000) end return 1";
        redis.command("EVAL", fill, "0", Integer.toString(LOCKS));
        try (DistributedLockFactory f = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()))) {
            for (int run = 0; run < 3; run++) {
                long start = System.nanoTime();
                long[] count = {0};
                try (Stream<LockInfo> locks = f.operations().locks("bench:")) {
                    locks.forEach(l -> count[0]++);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("listing run %d: %d locks in %d ms%n", run, count[0], millis);
                assertThat(count[0]).isEqualTo(LOCKS);
            }
        }
    }
}
