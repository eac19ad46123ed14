package io.lockkit.testkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The default of {@link LockContractTest#raiseHoldCount}: reentrant acquisitions, one round trip
 * each, from four threads at once. Bounded by progress rather than in total, since a slow backend
 * may take long for all of them: it fails when no acquisition has returned for a while.
 */
final class ReentrantAcquisitions {

    private static final int THREADS = 4;

    private ReentrantAcquisitions() {}

    /**
     * Raises the hold count of {@code owner}, which holds {@code name} on {@code provider} once, to
     * {@code count}; the threads are the kit's ({@code kitThreads}: interrupted after the test).
     *
     * @throws AssertionError when no acquisition returned for {@code stall}, naming the one that did not
     * @throws IllegalStateException when an acquisition was refused
     */
    static void raise(
            LockProvider provider,
            String name,
            String owner,
            Duration lease,
            int count,
            List<Thread> kitThreads,
            Duration stall)
            throws InterruptedException {
        AtomicInteger left = new AtomicInteger(count - 1);
        AtomicReference<@Nullable RuntimeException> failure = new AtomicReference<>();
        List<Thread> acquiring = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(
                    () -> {
                        try {
                            while (left.getAndDecrement() > 0 && failure.get() == null) {
                                if (!provider.tryAcquire(new LockRequest(name, owner, lease, Duration.ZERO))
                                        .isAcquired()) {
                                    throw new IllegalStateException(
                                            "a reentrant acquisition of " + name + " was refused");
                                }
                            }
                        } catch (RuntimeException e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "kit-reentry-" + t);
            thread.setDaemon(true);
            kitThreads.add(thread);
            acquiring.add(thread);
            thread.start();
        }
        awaitProgress(acquiring, left, stall, name);
        RuntimeException failed = failure.get();
        if (failed != null) {
            throw failed;
        }
    }

    /** Waits for every thread, failing when {@code left} has not moved for {@code stall} while one still runs. */
    private static void awaitProgress(List<Thread> acquiring, AtomicInteger left, Duration stall, String name)
            throws InterruptedException {
        int seen = left.get();
        long movedAt = System.nanoTime();
        for (Thread thread : acquiring) {
            while (thread.isAlive()) {
                thread.join(100);
                int now = left.get();
                if (now != seen) {
                    seen = now;
                    movedAt = System.nanoTime();
                } else if (thread.isAlive() && System.nanoTime() - movedAt > stall.toNanos()) {
                    throw BoundedCalls.stuck(
                            "a reentrant acquisition of " + name + " (the kit raising its hold count)", stall, thread);
                }
            }
        }
    }
}
