package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockInfo;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "jobs served in arrival order" (docs/recipes.md): batches that instances submit to one
 * ledger are posted in the order they asked for it, whichever instance asked.
 */
@DisplayName("recipe: jobs served in arrival order")
class FifoJobsRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<DistributedLockFactory> instances = new ArrayList<>();
    private final String ledgerName = "ledger-" + UUID.randomUUID();

    /** Stands for the ledger: the batches in the order they were posted. */
    static final class Ledger {
        final List<String> posted = new CopyOnWriteArrayList<>();

        void post(String batch) {
            posted.add(batch);
        }
    }

    // guide:fifo-jobs-begin
    /** Posts {@code batch} once every batch that asked for the ledger earlier, on any instance, is posted. */
    static boolean postInTurn(DistributedLockFactory locks, String ledgerName, Ledger ledger, String batch)
            throws InterruptedException {
        DistributedLock turn = locks.getFairLock(ledgerName); // first come, first served
        if (!turn.tryLock(5, TimeUnit.MINUTES)) {
            return false; // not our turn within 5 minutes: report it, try later
        }
        try {
            ledger.post(batch);
            return true;
        } finally {
            turn.unlock();
        }
    }
    // guide:fifo-jobs-end

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
    @DisplayName("batches of three instances are posted in the order they asked for the ledger")
    void batchesArePostedInArrivalOrder() throws Exception {
        Ledger ledger = new Ledger();
        DistributedLock first = instances.get(0).getFairLock(ledgerName);
        first.lock(); // the ledger is busy while the batches line up
        List<String> asked = new CopyOnWriteArrayList<>();
        CountDownLatch posted = new CountDownLatch(6);
        List<Thread> submitters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            DistributedLockFactory locks = instances.get(i % 3);
            String batch = "batch-" + i;
            Thread t = new Thread(() -> {
                try {
                    asked.add(batch);
                    if (postInTurn(locks, ledgerName, ledger, batch)) {
                        posted.countDown();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            submitters.add(t);
            int queued = i + 1;
            await(batch + " in the queue") // so that the batches ask in the order they were started
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> instances
                                    .get(0)
                                    .operations()
                                    .inspect(ledgerName)
                                    .map(LockInfo::waiters)
                                    .orElse(0)
                            >= queued);
        }
        first.unlock();
        assertThat(posted.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ledger.posted).containsExactlyElementsOf(asked);
        for (Thread t : submitters) {
            t.join(10_000);
        }
    }
}
