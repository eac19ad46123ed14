package io.lockkit.benchmarks;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Bytes this thread allocates per uncontended lock + unlock over {@link LocalLockProvider}, read
 * from {@code com.sun.management.ThreadMXBean} after warm-up rounds; with the argument
 * {@code counting}, a counting observer is registered; with {@code micrometer}, lock-micrometer's
 * {@code LockMetrics} bound to a {@code SimpleMeterRegistry}. Uses only the public API, so the same class
 * runs against older lock-api builds for a before/after figure.
 */
public final class AllocationPerLock {

    private AllocationPerLock() {}

    public static void main(String[] args) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(new LocalLockProvider());
        if (args.length > 0 && args[0].equals("counting")) {
            Counting.addTo(b);
        } else if (args.length > 0 && args[0].equals("micrometer")) {
            Micrometer.addTo(b);
        }
        try (DistributedLockFactory locks = b.build()) {
            DistributedLock lock = locks.getLock("allocation");
            long tid = Thread.currentThread().getId();
            int pairs = 2_000_000;
            for (int round = 0; round < 5; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < pairs; i++) {
                    lock.lock();
                    lock.unlock();
                }
                long after = mx.getThreadAllocatedBytes(tid);
                System.out.printf(
                        Locale.ROOT,
                        "round %d: %.1f bytes per lock + unlock%n",
                        round,
                        (after - before) / (double) pairs);
            }
        }
    }

    /** A class of its own, so that this one also loads without lock-micrometer. */
    private static final class Micrometer {
        static void addTo(DistributedLockFactory.Builder b) {
            io.lockkit.micrometer.LockMetrics metrics = io.lockkit.micrometer.LockMetrics.create();
            metrics.bindTo(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
            b.observer(metrics);
        }
    }

    /** A class of its own, so that this one also loads against a lock-api without observers. */
    private static final class Counting {
        static void addTo(DistributedLockFactory.Builder b) {
            b.observer(new ObserverCostBenchmark.CountingObserver());
        }
    }
}
