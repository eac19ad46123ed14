package io.lockkit.testkit.history;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The threads of a {@link LockHistory} run: its own (never a common pool: a blocked client must not
 * starve the fault thread), daemon, the first failure of any kept for the run to report, and a
 * {@link #stop} flag they all watch. Thread-safe.
 */
final class HistoryThreads {

    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
    private volatile boolean stopped;

    /** Starts {@code body} on a new daemon thread named {@code name}. */
    void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((thread, e) -> {
            Throwable first =
                    failure.compareAndExchange(null, new AssertionError("thread " + thread.getName() + " failed", e));
            if (first != null) {
                first.addSuppressed(e);
            }
        });
        threads.add(t);
        t.start();
    }

    /** Tells every thread to stop (they watch {@link #stopped()}). */
    void stop() {
        stopped = true;
    }

    boolean stopped() {
        return stopped;
    }

    /** The first failure of a thread, if any. */
    @Nullable
    Throwable failure() {
        return failure.get();
    }

    /** Waits up to {@code timeout} for every thread to end; true when none is alive. */
    boolean join(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }

    /** Interrupts every thread. */
    void interrupt() {
        threads.forEach(Thread::interrupt);
    }

    /** The names of the threads still alive. */
    List<String> alive() {
        return threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
    }
}
