package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A counter whose read-modify-write loses updates unless callers are excluded. Its state is static,
 * so it is shared by every container in the JVM, as a database would be by separate applications.
 */
@ApplicationScoped
public class SharedCounter {

    static volatile Overlaps overlaps = new Overlaps();
    static volatile int value;

    static void reset() {
        overlaps = new Overlaps();
        value = 0;
    }

    @Locked(value = "shared-counter", waitTime = 30)
    public void increment() {
        overlaps.enter();
        try {
            int read = value;
            LockSupport.parkNanos(200_000); // widen the window a lost update needs
            value = read + 1;
        } finally {
            overlaps.exit();
        }
    }

    /** Holds the counter's lock until {@code release} opens. */
    @Locked(value = "shared-counter", waitTime = 30)
    public void holdUntil(CountDownLatch held, CountDownLatch release) throws InterruptedException {
        held.countDown();
        release.await(30, TimeUnit.SECONDS);
    }

    @Locked(value = "shared-counter", waitTime = 0)
    public void incrementIfFree() {
        value++;
    }
}
