package io.lockkit.examples.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.se.SeContainerInitializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("the Weld SE example application")
class OrderServiceExampleTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @BeforeAll
    static void configure(RedisServer redis) {
        // What microprofile-config.properties (or LOCKKIT_REDIS_URI) would say in a real application.
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        resolver.releaseConfig(resolver.getConfig(loader));
        resolver.registerConfig(
                new SmallRyeConfigBuilder()
                        .withSources(
                                new PropertiesConfigSource(Map.of("lockkit.redis.uri", redis.uri()), "example", 500))
                        .build(),
                loader);
    }

    @AfterAll
    static void clear() {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        resolver.releaseConfig(resolver.getConfig(Thread.currentThread().getContextClassLoader()));
    }

    @Test
    @DisplayName("the program runs: lock-cdi is discovered through its beans.xml")
    void programRuns() {
        ShopApplication.main(new String[0]);
    }

    @Test
    @DisplayName("an order is shipped once however many threads try at the same time")
    void shipsEachOrderOnce() throws Exception {
        try (SeContainer container = SeContainerInitializer.newInstance()
                .addBeanClasses(OrderService.class, InMemoryShipments.class)
                .initialize()) {
            OrderService orders = container.select(OrderService.class).get();
            InMemoryShipments store = container.select(InMemoryShipments.class).get();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Boolean>> attempts = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    attempts.add(pool.submit(() -> orders.ship(new Order(7, "coffee", 1))));
                }
                int shipped = 0;
                for (Future<Boolean> attempt : attempts) {
                    shipped += attempt.get() ? 1 : 0;
                }
                assertThat(shipped).isEqualTo(1);
            } finally {
                pool.shutdownNow();
            }
            assertThat(store.records()).isEqualTo(1);
            orders.dailyReport();
            assertThat(store.reports()).isEqualTo(1);
            assertThat(orders.restock("tea", 10)).as("newest token writes").isTrue();
            assertThat(orders.restockLocked("tea", 5))
                    .as("a later hold's token, taken inside the @Locked method, writes too")
                    .isTrue();
        }
    }
}
