package io.lockkit.examples.cdi;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

/** The example shop's order service: the code of the Jakarta EE guide (docs/jakarta-ee.md) and the README's quick start. */
// readme:begin
@ApplicationScoped
public class OrderService {

    @Inject
    DistributedLockFactory locks;

    @Inject
    Shipments shipments; // shared by every instance of the application

    // front:ship-begin
    /** At most one instance ships a given order at a time, so check-then-act is safe. */
    @Locked("order:{order.id}")
    public boolean ship(Order order) {
        if (shipments.contains(order.id())) {
            return false;
        }
        shipments.record(order);
        return true;
    }
    // front:ship-end

    /** Runs on one instance; the others skip it instead of queueing up. */
    @Locked(value = "daily-report", waitTime = 0, whenBusy = WhenBusy.SKIP)
    public void dailyReport() {
        shipments.writeDailyReport();
    }

    /** A locked method that hands its hold's fencing token to the store, which refuses older ones. */
    @Locked("stock:{sku}")
    public boolean restockLocked(String sku, int quantity) {
        long token = CurrentLock.handle().orElseThrow().fencingToken();
        return shipments.restock(sku, quantity, token);
    }

    /** The explicit API, for a lock that is not one method's; the token fences out stale writers. */
    public boolean restock(String sku, int quantity) throws InterruptedException {
        try (LockHandle hold = locks.acquire("stock:" + sku, LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
            return shipments.restock(sku, quantity, hold.fencingToken());
        }
    }
}
// readme:end
