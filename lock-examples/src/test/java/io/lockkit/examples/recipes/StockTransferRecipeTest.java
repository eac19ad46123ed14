package io.lockkit.examples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.MultiLockHandle;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "moving stock between two warehouses" (docs/recipes.md): two instances move stock both
 * ways at once with {@code acquireAll}; the total is kept, nothing deadlocks, and a refused transfer
 * moves nothing and leaves both stocks free.
 */
@DisplayName("recipe: moving stock between two warehouses")
class StockTransferRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<DistributedLockFactory> instances = new ArrayList<>();
    private final String sku = "sku-" + UUID.randomUUID();
    private final Warehouse north = new Warehouse("north");
    private final Warehouse south = new Warehouse("south");

    @BeforeEach
    void twoInstances(RedisServer redis) {
        for (int i = 0; i < 2; i++) {
            instances.add(DistributedLockFactory.create(JedisLockProvider.create(redis.uri())));
        }
        north.stock.put(sku, 1_000);
        south.stock.put(sku, 1_000);
    }

    @AfterEach
    void close() {
        instances.forEach(DistributedLockFactory::close);
    }

    // guide:stock-transfer-begin
    /** Moves {@code quantity} of {@code sku} between two warehouses: both stocks locked, or neither. */
    static void transfer(DistributedLockFactory locks, Warehouse from, Warehouse to, String sku, int quantity)
            throws InterruptedException {
        String source = "stock:" + from.name() + ":" + sku;
        String target = "stock:" + to.name() + ":" + sku;
        LockOptions wait = LockOptions.waitAtMost(Duration.ofSeconds(10));
        try (MultiLockHandle both = locks.acquireAll(List.of(source, target), wait)) {
            from.remove(sku, quantity, both.fencingToken(source)); // each store refuses an older token
            to.add(sku, quantity, both.fencingToken(target));
        }
    }
    // guide:stock-transfer-end

    @Test
    @DisplayName("two instances moving stock both ways at once keep the total, and never deadlock")
    void transfersBothWaysKeepTheTotal() throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (DistributedLockFactory locks : instances) {
                done.add(workers.submit(() -> repeat(100, () -> transfer(locks, north, south, sku, 3))));
                done.add(workers.submit(() -> repeat(100, () -> transfer(locks, south, north, sku, 2))));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS); // a deadlock would end here
            }
        } finally {
            workers.shutdownNow();
        }
        // Each instance moved 300 north to south and 200 back.
        assertThat(north.stock.get(sku)).isEqualTo(1_000 - 2 * 300 + 2 * 200);
        assertThat(south.stock.get(sku)).isEqualTo(1_000 + 2 * 300 - 2 * 200);
    }

    @Test
    @DisplayName("a transfer of more than the source has moves nothing and leaves both stocks free")
    void aRefusedTransferMovesNothing() {
        assertThatThrownBy(() -> transfer(instances.get(0), north, south, sku, 5_000))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("too little");
        assertThat(north.stock.get(sku)).isEqualTo(1_000);
        assertThat(south.stock.get(sku)).isEqualTo(1_000);
        DistributedLockFactory other = instances.get(1);
        for (String stock : List.of("stock:north:" + sku, "stock:south:" + sku)) {
            assertThat(other.tryAcquire(stock)).as("%s was released", stock).hasValueSatisfying(LockHandle::release);
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static Void repeat(int times, Step step) throws Exception {
        for (int i = 0; i < times; i++) {
            step.run();
        }
        return null;
    }

    /**
     * A warehouse's stock store, as its own service would keep it: it refuses a write whose fencing
     * token is older than the last one it accepted for that stock.
     */
    static final class Warehouse {
        private final String name;
        final Map<String, Integer> stock = new HashMap<>();
        private final Map<String, Long> lastToken = new HashMap<>();

        Warehouse(String name) {
            this.name = name;
        }

        String name() {
            return name;
        }

        synchronized void remove(String sku, int quantity, long token) {
            fence(sku, token);
            int left = stock.getOrDefault(sku, 0) - quantity;
            if (left < 0) {
                throw new IllegalStateException(name + " has too little of " + sku);
            }
            stock.put(sku, left);
        }

        synchronized void add(String sku, int quantity, long token) {
            fence(sku, token);
            stock.merge(sku, quantity, Integer::sum);
        }

        private void fence(String sku, long token) {
            if (token < lastToken.getOrDefault(sku, 0L)) {
                throw new IllegalStateException("a newer holder wrote " + sku + " at " + name + "; this hold is stale");
            }
            lastToken.put(sku, token);
        }
    }
}
