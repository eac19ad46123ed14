package io.lockkit.spring;

import io.lockkit.cdi.Locked;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** A counter whose increment is a read, a yield and a write: without a lock, concurrent calls lose updates. */
public class Counters {

    private int value;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();

    /** The increment under its lock. */
    @Locked("counter")
    public void lockedIncrement() {
        increment(null);
    }

    /**
     * The same increment without a lock, where two callers meet at {@code meet} between the read and
     * the write: both read the same value, so one update is lost every time.
     */
    public void unlockedIncrement(CyclicBarrier meet) {
        increment(meet);
    }

    private void increment(CyclicBarrier meet) {
        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
            int read = value;
            if (meet != null) {
                meet.await(10, TimeUnit.SECONDS);
            }
            Thread.yield();
            value = read + 1;
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException(e);
        } finally {
            inside.decrementAndGet();
        }
    }

    public int value() {
        return value;
    }

    /** The most calls that were inside at once. */
    public int mostInside() {
        return mostInside.get();
    }

    public void reset() {
        value = 0;
        mostInside.set(0);
    }
}
