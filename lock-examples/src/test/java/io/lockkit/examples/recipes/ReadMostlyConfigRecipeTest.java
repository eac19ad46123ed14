package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
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
 * The recipe "read-mostly configuration" (docs/recipes.md): instances read a shared price list on
 * every request and one of them now and then replaces it in two steps; no reader ever sees a list
 * half replaced, and readers never wait for each other.
 */
@DisplayName("recipe: read-mostly configuration")
class ReadMostlyConfigRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<DistributedLockFactory> instances = new ArrayList<>();
    private final String listName = "prices-" + UUID.randomUUID();

    /** Stands for a shared store: a price list replaced in two writes, consistent only between them. */
    static final class PriceStore {
        final Map<String, Integer> prices = new ConcurrentHashMap<>(Map.of("tea", 4, "tea-version", 0));

        void replace(int version) throws InterruptedException {
            prices.put("tea-version", version);
            Thread.sleep(2); // the second write comes a little later
            prices.put("tea", 4 + version);
        }

        boolean consistent() {
            int version = prices.get("tea-version");
            return prices.get("tea") == 4 + version;
        }
    }

    /** One instance's view of the price list. */
    static final class Prices {
        private final DistributedReadWriteLock priceList;
        private final PriceStore store;

        Prices(DistributedLockFactory locks, String listName, PriceStore store) {
            this.priceList = locks.getReadWriteLock(listName);
            this.store = store;
        }

        // guide:read-mostly-begin
        /** Reads the list: any number of instances at once, none while it is being replaced. */
        boolean readConsistently() {
            priceList.readLock().lock();
            try {
                return store.consistent();
            } finally {
                priceList.readLock().unlock();
            }
        }

        /** Replaces the list: alone, after the readers in progress; new readers wait behind it. */
        void replace(int version) throws InterruptedException {
            priceList.writeLock().lock();
            try {
                store.replace(version);
            } finally {
                priceList.writeLock().unlock();
            }
        }
        // guide:read-mostly-end
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
    @DisplayName("readers on three instances never see a list half replaced while one instance replaces it")
    void readersNeverSeeAHalfReplacedList() throws Exception {
        PriceStore store = new PriceStore();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger torn = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(7);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (DistributedLockFactory locks : instances) {
                Prices prices = new Prices(locks, listName, store);
                for (int t = 0; t < 2; t++) {
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 100; i++) {
                            reads.incrementAndGet();
                            if (!prices.readConsistently()) {
                                torn.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            Prices writer = new Prices(instances.get(0), listName, store);
            done.add(threads.submit(() -> {
                for (int v = 1; v <= 20; v++) {
                    writer.replace(v);
                }
                return null;
            }));
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(reads).hasValue(600);
        assertThat(torn).as("reads of a half-replaced list").hasValue(0);
        assertThat(store.prices).containsEntry("tea-version", 20).containsEntry("tea", 24);
    }
}
