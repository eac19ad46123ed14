package io.lockkit.examples.spring;

import io.lockkit.cdi.CurrentLock;
import io.lockkit.cdi.Locked;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.springframework.stereotype.Service;

/**
 * Stock reservations: a read-modify-write of a count that every instance shares, which loses updates
 * unless one caller per SKU runs it at a time across the instances. Thread-safe through the lock.
 */
@Service
public class StockService {

    /** The time between reading the count and writing it, standing for work such as a price check. */
    private static final long WORK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final SharedFiles files;
    private final Instance instance;

    public StockService(SharedFiles files, Instance instance) {
        this.files = files;
        this.instance = instance;
    }

    /** What a reservation left: the SKU's count after it, the lock's fencing token, the instance that served it. */
    public record Reservation(String sku, int reserved, long token, String instance) {}

    /**
     * Reserves {@code quantity} of {@code sku}; one caller per SKU at a time, across all instances
     * (waiting up to a minute, then {@code LockNotAcquiredException}).
     */
    @Locked("sku:{sku}")
    public Reservation reserve(String sku, int quantity) {
        long token = CurrentLock.handle().orElseThrow().fencingToken();
        return readModifyWrite(sku, quantity, token);
    }

    /**
     * The same update without the lock: the negative control of SpringExampleIT, which shows that
     * concurrent calls on two instances lose updates here.
     */
    public Reservation reserveWithoutLock(String sku, int quantity) {
        return readModifyWrite(sku, quantity, 0);
    }

    public int reserved(String sku) {
        return files.reserved(sku);
    }

    private Reservation readModifyWrite(String sku, int quantity, long token) {
        int before = files.reserved(sku);
        LockSupport.parkNanos(WORK_NANOS);
        files.setReserved(sku, before + quantity);
        return new Reservation(sku, before + quantity, token, instance.name());
    }
}
