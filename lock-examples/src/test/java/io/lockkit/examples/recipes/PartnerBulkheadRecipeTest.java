package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "a partner API's limit across instances" (docs/recipes.md): three instances call a
 * partner that allows 3 calls in flight; the partner never sees a fourth, whatever the instances
 * do at once, and a call that finds no permit in time is refused, not sent.
 */
@DisplayName("recipe: a partner API's limit across instances")
class PartnerBulkheadRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<DistributedLockFactory> instances = new ArrayList<>();
    private final String partnerName = "partner-" + UUID.randomUUID();

    /** Stands for the partner: counts the calls in flight and remembers the most it saw. */
    static final class Partner {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();

        String call(String order) throws InterruptedException {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                Thread.sleep(5);
                calls.incrementAndGet();
                return "booked " + order;
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    /** One instance's client of the partner. */
    static final class PartnerClient {
        private final DistributedSemaphore partnerCalls;
        private final Partner partner;

        PartnerClient(DistributedLockFactory locks, String partnerName, Partner partner) {
            this.partner = partner;
            // guide:bulkhead-begin
            this.partnerCalls = locks.getSemaphore(partnerName, 3); // the partner allows 3 calls in flight
            // guide:bulkhead-end
        }

        // guide:bulkhead-call-begin
        /** Books {@code order} with the partner, as one of at most 3 calls in flight across every instance. */
        String book(String order) throws InterruptedException {
            try (LockHandle permit = partnerCalls.acquire(1, LockOptions.waitAtMost(Duration.ofSeconds(10)))) {
                return partner.call(order);
            } // LockNotAcquiredException: no permit within 10 s, the call is not sent
        }
        // guide:bulkhead-call-end
    }

    @BeforeEach
    void threeInstances(RedisServer redis) {
        for (int i = 0; i < 3; i++) {
            instances.add(DistributedLockFactory.create(JedisLockProvider.create(redis.uri())));
        }
    }

    @AfterEach
    void close() {
        instances.forEach(DistributedLockFactory::close);
    }

    @Test
    @DisplayName("three instances with four callers each never have more than three calls in flight")
    void neverMoreThanThreeInFlight() throws Exception {
        Partner partner = new Partner();
        ExecutorService callers = Executors.newFixedThreadPool(12);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (DistributedLockFactory locks : instances) {
                PartnerClient client = new PartnerClient(locks, partnerName, partner);
                for (int t = 0; t < 4; t++) {
                    int caller = t;
                    done.add(callers.submit(() -> {
                        for (int i = 0; i < 15; i++) {
                            client.book("order-" + caller + "-" + i);
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(partner.calls).hasValue(180);
        assertThat(partner.most.get()).as("the most calls in flight at once").isBetween(1, 3);
    }

    @Test
    @DisplayName("a call that finds no permit in time is refused and never reaches the partner")
    void aCallWithoutAPermitIsNotSent() throws Exception {
        Partner partner = new Partner();
        DistributedSemaphore others = instances.get(0).getSemaphore(partnerName, 3);
        List<LockHandle> busy = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            busy.add(others.acquire(1, LockOptions.noWait()));
        }
        DistributedSemaphore mine = instances.get(1).getSemaphore(partnerName, 3);
        assertThat(mine.tryAcquire(1, LockOptions.waitAtMost(Duration.ofMillis(200))))
                .isEmpty();
        try {
            mine.acquire(1, LockOptions.noWait());
            throw new AssertionError("a fourth permit was granted");
        } catch (LockNotAcquiredException expected) {
            assertThat(partner.calls).hasValue(0);
        }
        busy.forEach(LockHandle::release);
        assertThat(new PartnerClient(instances.get(1), partnerName, partner).book("late"))
                .isEqualTo("booked late");
    }
}
