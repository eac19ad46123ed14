package io.lockkit;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The executors of one {@link ProviderLockFactory}: the scheduler (watchdog renewals and loss
 * deadlines, wait and leadership timers, wake-ups' lingering subscriptions, abandons sent again)
 * and the executor of asynchronous acquisitions. Each is the caller's (from the builder) or the
 * factory's own, which {@link #shutdown()} ends. Thread-safe.
 */
final class EngineThreads {

    /** Threads of the factory's own executor for asynchronous acquisitions. */
    static final int ASYNC_THREADS = 2;

    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    /** Where asynchronous acquisitions call the provider and complete their stages. */
    private final Executor asyncExecutor;
    /** The factory's own {@link #asyncExecutor}, shut down at close; null when the caller gave one. */
    private final @Nullable ExecutorService ownAsyncExecutor;

    /**
     * @param scheduler the caller's, or null for two daemon threads of our own
     * @param asyncExecutor the caller's, or null for {@value #ASYNC_THREADS} threads of our own
     * @param threadFactory the caller's (a container's managed one), or null
     */
    EngineThreads(
            @Nullable ScheduledExecutorService scheduler,
            @Nullable Executor asyncExecutor,
            @Nullable ThreadFactory threadFactory,
            String clientId) {
        this.ownsScheduler = scheduler == null;
        this.scheduler = scheduler != null ? scheduler : ownScheduler(threadFactory, clientId);
        if (asyncExecutor != null) {
            this.asyncExecutor = asyncExecutor;
            this.ownAsyncExecutor = null;
            return;
        }
        ThreadPoolExecutor async = asyncPool(threadFactory, clientId);
        this.ownAsyncExecutor = async;
        if (threadFactory == null) {
            this.asyncExecutor = async;
        } else {
            // A container's managed thread factory gives a thread the context of the caller of
            // newThread, and the pool makes a thread in the execute() that needs one: hand tasks
            // over from a scheduler thread (made at build, with the application's context), never
            // from the caller of acquireAsync, whose request identity the thread would keep.
            ScheduledExecutorService handOver = this.scheduler;
            this.asyncExecutor = task -> handOver.execute(() -> {
                try {
                    async.execute(task);
                } catch (RejectedExecutionException e) {
                    task.run(); // closing: the step finds the factory closed and ends the wait
                }
            });
        }
    }

    private static ScheduledExecutorService ownScheduler(@Nullable ThreadFactory threadFactory, String clientId) {
        ThreadFactory tf = threadFactory != null ? threadFactory : daemons("lockkit-scheduler-" + clientId);
        // Two threads: a renewal blocked on an unresponsive backend occupies one, and the other
        // keeps reporting losses at their deadlines (see LeaseWatchdog).
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, tf);
        executor.setRemoveOnCancelPolicy(true);
        if (threadFactory != null) {
            // A container's managed thread factory gives a thread the context of the caller of
            // newThread (WildFly, GlassFish/Payara): make them now, at application start, not
            // lazily on a request thread whose security identity they would keep.
            executor.prestartAllCoreThreads();
        }
        return executor;
    }

    /**
     * The factory's own executor for asynchronous acquisitions: {@value #ASYNC_THREADS} threads,
     * made when an acquisition needs one and gone after a minute without work.
     */
    private static ThreadPoolExecutor asyncPool(@Nullable ThreadFactory threadFactory, String clientId) {
        ThreadFactory tf = threadFactory != null ? threadFactory : daemons("lockkit-async-" + clientId);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                ASYNC_THREADS, ASYNC_THREADS, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), tf);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static ThreadFactory daemons(String threadName) {
        return r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        };
    }

    /** Timers and renewals; the caller's or the factory's own. */
    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** Where asynchronous acquisitions run their steps. */
    Executor asyncExecutor() {
        return asyncExecutor;
    }

    /**
     * Ends the factory's own executors (never the caller's): queued asynchronous steps still run,
     * find the factory closed and fail their stages; the scheduler stops now.
     */
    void shutdown() {
        if (ownAsyncExecutor != null) {
            ownAsyncExecutor.shutdown();
        }
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
    }
}
