package io.lockkit.examples.cdi;

import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.se.SeContainerInitializer;

/** The example shop as a Java SE program on Weld SE; Redis comes from lockkit.redis.uri. */
public final class ShopApplication {

    private ShopApplication() {}

    // readme:begin
    public static void main(String[] args) {
        try (SeContainer container = SeContainerInitializer.newInstance()
                .addBeanClasses(OrderService.class, InMemoryShipments.class) // lock-cdi's beans: from its jar
                .initialize()) {
            boolean shipped = container.select(OrderService.class).get().ship(new Order(42, "tea", 3));
            System.out.println(shipped ? "order 42 shipped" : "order 42 was already shipped");
        }
    }
    // readme:end
}
