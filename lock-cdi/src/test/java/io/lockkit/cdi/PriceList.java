package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

// primitives:cdi-modes-begin
@ApplicationScoped
public class PriceList {

    private final Map<String, Integer> prices = new ConcurrentHashMap<>(); // a cache of shared data

    /** Any number of calls at once, in every instance, while nobody reloads. */
    @Locked(value = "prices", mode = LockMode.READ)
    public Optional<Integer> price(String sku) {
        return Optional.ofNullable(prices.get(sku));
    }

    /** Alone: readers wait, and new ones queue behind it. */
    @Locked(value = "prices", mode = LockMode.WRITE)
    public void reload(Map<String, Integer> latest) {
        prices.clear();
        prices.putAll(latest);
    }
}
// primitives:cdi-modes-end
