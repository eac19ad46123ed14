package io.lockkit.examples.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link Shipments} in memory, standing in for the database; counts what it was asked to do. */
@ApplicationScoped
public class InMemoryShipments implements Shipments {

    private final Set<Long> shipped = ConcurrentHashMap.newKeySet();
    private final AtomicInteger records = new AtomicInteger();
    private final AtomicInteger reports = new AtomicInteger();
    private final Map<String, Long> lastToken = new ConcurrentHashMap<>();

    @Override
    public boolean contains(long orderId) {
        return shipped.contains(orderId);
    }

    @Override
    public void record(Order order) {
        records.incrementAndGet();
        shipped.add(order.id());
    }

    @Override
    public void writeDailyReport() {
        reports.incrementAndGet();
    }

    @Override
    public boolean restock(String sku, int quantity, long fencingToken) {
        return lastToken.merge(sku, fencingToken, Math::max) == fencingToken;
    }

    public int records() {
        return records.get();
    }

    public int reports() {
        return reports.get();
    }
}
