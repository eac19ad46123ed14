package io.lockkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link ScheduledExecutorService} on a {@link FakeTicker} that runs nothing by itself: the test
 * moves the clock with {@link #advance(Duration)}, which runs every task due by then on the test's
 * thread, in time order (tasks a task schedules for no later than the clock run in the same call).
 * Makes the watchdog and the room linger deterministic. Not thread-safe beyond its own monitor:
 * drive it from one test thread.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private static final int MAX_RUNS_PER_INSTANT = 1000;

    final FakeTicker ticker;
    private final List<Task> tasks = new ArrayList<>();
    private long sequence;
    private boolean shutdown;
    private int refuseExecutes;

    ManualScheduler(FakeTicker ticker) {
        this.ticker = ticker;
    }

    /** A task run by this scheduler at {@link #at}; cancelled tasks never run. */
    final class Task extends FutureTask<Object> implements ScheduledFuture<Object> {
        final long at;
        final long seq;

        Task(Callable<Object> body, long at) {
            super(body);
            this.at = at;
            synchronized (ManualScheduler.this) {
                this.seq = sequence++;
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(at - ticker.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterrupt) {
            boolean c = super.cancel(mayInterrupt);
            synchronized (ManualScheduler.this) {
                tasks.remove(this);
            }
            return c;
        }
    }

    /**
     * Moves the clock forward by {@code d}, stopping at each task's due time to run it, in time
     * order (so a task scheduled by another runs at its own time, not at the end of the move).
     *
     * @throws AssertionError when a task failed, or tasks keep scheduling themselves for the same
     *         instant (a tight loop on a real scheduler)
     */
    void advance(Duration d) {
        long target = ticker.nanoTime() + d.toNanos();
        int runsAtThisInstant = 0;
        long instant = ticker.nanoTime();
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.stream()
                        .filter(t -> t.at - target <= 0)
                        .min(Comparator.<Task>comparingLong(t -> t.at - target).thenComparingLong(t -> t.seq))
                        .orElse(null);
                if (next == null) {
                    break;
                }
                tasks.remove(next);
            }
            long now = ticker.nanoTime();
            if (next.at - now > 0) {
                ticker.advance(Duration.ofNanos(next.at - now));
            }
            if (ticker.nanoTime() != instant) {
                instant = ticker.nanoTime();
                runsAtThisInstant = 0;
            }
            if (++runsAtThisInstant > MAX_RUNS_PER_INSTANT) {
                throw new AssertionError("more than " + MAX_RUNS_PER_INSTANT
                        + " tasks ran at one instant: a task keeps rescheduling itself for now");
            }
            run(next);
        }
        long now = ticker.nanoTime();
        if (target - now > 0) {
            ticker.advance(Duration.ofNanos(target - now));
        }
    }

    /** Runs every task due at the current time (including tasks those tasks schedule for now). */
    void runDue() {
        advance(Duration.ZERO);
    }

    private static void run(Task task) {
        task.run();
        try {
            if (!task.isCancelled()) {
                task.get(0, TimeUnit.NANOSECONDS);
            }
        } catch (ExecutionException e) {
            throw new AssertionError("a scheduled task failed", e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    /** Tasks waiting to run (not cancelled). */
    synchronized int pending() {
        return tasks.size();
    }

    /** When the earliest pending task is due, in nanoseconds from now; empty when none is. */
    synchronized java.util.OptionalLong nextDelayNanos() {
        return tasks.stream().mapToLong(t -> t.at - ticker.nanoTime()).min();
    }

    private synchronized Task add(Callable<Object> body, long delayNanos) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        Task t = new Task(body, ticker.nanoTime() + Math.max(0, delayNanos));
        tasks.add(t);
        return t;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(
                () -> {
                    command.run();
                    return null;
                },
                unit.toNanos(delay));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the core");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the core");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the core");
    }

    /** The next {@code n} calls of {@link #execute} are refused, as by an executor that is shutting down. */
    synchronized void refuseNextExecutes(int n) {
        refuseExecutes = n;
    }

    /** Queued to run at the current time, on the next {@link #runDue()} or {@link #advance}. */
    @Override
    public void execute(Runnable command) {
        synchronized (this) {
            if (refuseExecutes > 0) {
                refuseExecutes--;
                throw new RejectedExecutionException("refused by the test");
            }
        }
        add(
                () -> {
                    command.run();
                    return null;
                },
                0);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(tasks);
        tasks.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }
}
