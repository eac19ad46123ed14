package io.lockkit.examples.cdi;

/** The example shop's shared store (a database in a real application), used by every instance. */
public interface Shipments {

    boolean contains(long orderId);

    void record(Order order);

    void writeDailyReport();

    /** Writes a stock level unless a write with a newer fencing token came first; returns whether it did. */
    boolean restock(String sku, int quantity, long fencingToken);
}
