package io.lockkit.examples.quarkus;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/** Stock reservations: a read-modify-write per SKU that loses updates unless callers are excluded. */
@ApplicationScoped
public class InventoryService {

    @Inject
    DistributedLockFactory locks;

    private final Map<String, Integer> reserved = new ConcurrentHashMap<>();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();

    /** Reserves {@code quantity} of {@code sku}; one caller per SKU at a time, across all instances. */
    @Locked("sku:{sku}")
    public int reserve(String sku, int quantity) {
        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
            int before = reserved.getOrDefault(sku, 0);
            LockSupport.parkNanos(100_000); // a lost update needs only this window
            reserved.put(sku, before + quantity);
            return before + quantity;
        } finally {
            inside.decrementAndGet();
        }
    }

    /** Like {@link #reserve}, but fails at once when another caller holds the SKU. */
    @Locked(value = "sku:{sku}", waitTime = 0)
    public int reserveNow(String sku, int quantity) {
        return reserve(sku, quantity);
    }

    /** The explicit API on the same factory: a hold across several calls, with its fencing token. */
    public LockHandle holdSku(String sku) throws InterruptedException {
        return locks.acquire("sku:" + sku);
    }

    public int reserved(String sku) {
        return reserved.getOrDefault(sku, 0);
    }

    /** The most callers ever seen inside {@link #reserve} at once. */
    public int mostInside() {
        return mostInside.get();
    }
}
