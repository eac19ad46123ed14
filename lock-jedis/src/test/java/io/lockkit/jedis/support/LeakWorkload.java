package io.lockkit.jedis.support;

import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.jedis.ProviderProbe;
import io.lockkit.testkit.CountingLockProvider;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Lock traffic for leak checks, and the figures that must return to their baseline afterwards:
 * threads, pub/sub channels, keys, pending scheduled tasks (renewal ticks, subscription lingers),
 * renewal calls and heap.
 *
 * <p>One factory over one provider, with the defaults a service would use except for short
 * leases and retention so that leftovers would show quickly: a 600 ms watchdog lease (renewed every
 * 200 ms), a 1 s fence retention, the default 2 s subscription linger. The factory runs on a
 * scheduler of the workload's own, so its queue of pending tasks can be read. Lock/unlock cycles
 * run on several threads over private names and a few shared, contended ones, through every
 * acquisition API; timed-out waits are {@code tryLock(1 ms)} calls on names a handle holds.
 */
public final class LeakWorkload implements AutoCloseable {

    public static final Duration WATCHDOG_LEASE = Duration.ofMillis(600);
    public static final Duration FENCE_RETENTION = Duration.ofSeconds(1);
    private static final int NAMES_PER_THREAD = 64;
    private static final int SHARED_NAMES = 4;
    private static final int HELD_NAMES = 16;

    private final RedisState redis;
    private final String prefix;
    private final int threads;
    private final CountingLockProvider provider;
    private final JedisLockProvider jedis;
    private final ScheduledThreadPoolExecutor scheduler;
    private final DistributedLockFactory factory;
    private final long[] sharedCounters = new long[SHARED_NAMES];
    private final AtomicLong sharedCycles = new AtomicLong();

    public LeakWorkload(String redisUri, RedisState redis, String prefix, int threads) {
        this.redis = redis;
        this.prefix = prefix;
        this.threads = threads;
        this.jedis = JedisLockProvider.builder()
                .uri(redisUri)
                .keyPrefix(prefix)
                .clientName("leak-workload")
                .fenceRetention(FENCE_RETENTION)
                .maxConnections(threads)
                .build();
        this.provider = new CountingLockProvider(jedis);
        AtomicInteger n = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread t = new Thread(r, "lockkit-leak-scheduler-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        this.scheduler = new ScheduledThreadPoolExecutor(2, tf);
        scheduler.setRemoveOnCancelPolicy(true);
        this.factory = DistributedLockFactory.builder(provider)
                .scheduler(scheduler)
                .defaultOptions(
                        LockOptions.builder().watchdogLease(WATCHDOG_LEASE).build())
                .build();
    }

    public JedisLockProvider jedisProvider() {
        return jedis;
    }

    /**
     * Runs {@code total} lock/unlock cycles on the workload's threads; every 16th cycle of a thread
     * is on a name shared by all threads (they contend and wait), every 50th is reentrant.
     *
     * @return the elapsed time in ms
     */
    public long cycles(int total) throws InterruptedException {
        return onThreads(total, (thread, i) -> {
            boolean shared = i % 16 == 0;
            int slot = i % SHARED_NAMES;
            String name = shared ? prefix + "-shared-" + slot : prefix + "-t" + thread + "-" + (i % NAMES_PER_THREAD);
            Runnable work = shared
                    ? () -> {
                        sharedCounters[slot]++; // guarded by the lock: a lost update means broken exclusion
                        sharedCycles.incrementAndGet();
                    }
                    : () -> {};
            DistributedLock lock = factory.getLock(name);
            switch (i % 4) {
                case 0 -> {
                    lock.lock();
                    try {
                        if (i % 50 == 0) {
                            lock.lock();
                            lock.unlock();
                        }
                        work.run();
                    } finally {
                        lock.unlock();
                    }
                }
                case 1 -> {
                    try (LockHandle h = factory.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(30)))) {
                        if (i % 50 == 1) {
                            h.acquireAgain();
                            h.release();
                        }
                        work.run();
                    }
                }
                case 2 -> {
                    if (!lock.tryLock(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("no lock on " + name + " within 30 s");
                    }
                    try {
                        work.run();
                    } finally {
                        lock.unlock();
                    }
                }
                default -> factory.runWithLock(name, LockOptions.waitAtMost(Duration.ofSeconds(30)), work);
            }
        });
    }

    /** Increments of the shared counters that happened, and the number there should be. */
    public long[] sharedUpdates() {
        long sum = 0;
        for (long c : sharedCounters) {
            sum += c;
        }
        return new long[] {sum, sharedCycles.get()};
    }

    /**
     * Holds {@value #HELD_NAMES} names by handle and makes {@code total} {@code tryLock(1 ms)} calls
     * on them from the workload's threads; every one must time out. Releases the names afterwards.
     *
     * @return the elapsed time in ms
     */
    public long timedOutWaits(int total) throws InterruptedException {
        List<LockHandle> held = new ArrayList<>();
        for (int k = 0; k < HELD_NAMES; k++) {
            held.add(factory.acquire(prefix + "-held-" + k, LockOptions.noWait()));
        }
        AtomicInteger acquired = new AtomicInteger();
        try {
            return onThreads(total, (thread, i) -> {
                DistributedLock lock = factory.getLock(prefix + "-held-" + ((thread + i) % HELD_NAMES));
                if (lock.tryLock(1, TimeUnit.MILLISECONDS)) {
                    acquired.incrementAndGet();
                    lock.unlock();
                }
            });
        } finally {
            held.forEach(LockHandle::close);
            if (acquired.get() > 0) {
                throw new IllegalStateException(acquired.get() + " timed waits acquired a lock held by another owner");
            }
        }
    }

    @FunctionalInterface
    private interface Step {
        void run(int thread, int index) throws Exception;
    }

    private long onThreads(int total, Step step) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            int count = total / threads + (t < total % threads ? 1 : 0);
            Thread w = new Thread(
                    () -> {
                        try {
                            go.await();
                            for (int i = 0; i < count && failure.get() == null; i++) {
                                step.run(thread, i);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "leak-worker-" + t);
            w.start();
            workers.add(w);
        }
        long start = System.nanoTime();
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (failure.get() != null) {
            throw new IllegalStateException("a worker failed", failure.get());
        }
        return millis;
    }

    /** The figures now; keys and channels are those under the workload's key prefix. */
    public Figures figures() {
        return new Figures(
                ManagementFactory.getThreadMXBean().getThreadCount(),
                lockkitThreads(),
                redis.channels(prefix + ":*").size(),
                waitedChannelSubscribers(),
                ProviderProbe.subscribedChannels(jedis),
                provider.openSubscriptions(),
                redis.keys(prefix + ":*").size(),
                scheduler.getQueue().size(),
                provider.renewCalls(),
                usedHeapAfterGc());
    }

    /** {@code PUBSUB NUMSUB} summed over the channels of every name that threads waited for. */
    private long waitedChannelSubscribers() {
        long sum = 0;
        for (int k = 0; k < SHARED_NAMES; k++) {
            sum += redis.subscribers(RedisState.channel(prefix, prefix + "-shared-" + k));
        }
        for (int k = 0; k < HELD_NAMES; k++) {
            sum += redis.subscribers(RedisState.channel(prefix, prefix + "-held-" + k));
        }
        return sum;
    }

    /**
     * Waits until no lock traffic is left: no lock channel subscribed, no key under the prefix, no
     * task pending on the scheduler; the figures then are the baseline.
     */
    public Figures awaitIdle(Duration atMost) {
        AtomicReference<Figures> last = new AtomicReference<>();
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(() -> {
                Figures now = figures();
                last.set(now);
                return now.providerChannels() == 0
                        && now.openSubscriptions() == 0
                        && now.waitedChannelSubscribers() == 0
                        && now.keys() == 0
                        && now.pendingTasks() == 0;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("not idle after " + atMost + ": " + last.get(), e);
        }
        return figures();
    }

    /**
     * Waits until the figures are back at {@code baseline} (threads and heap within a tolerance,
     * the rest exactly) and renewals have stopped for three renewal intervals.
     *
     * @throws AssertionError listing the figures when they do not return within {@code atMost}
     */
    public Figures awaitBaseline(Figures baseline, Duration atMost) {
        AtomicReference<Figures> last = new AtomicReference<>();
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(() -> {
                Figures now = figures();
                last.set(now);
                return now.backTo(baseline);
            });
            long renewals = provider.renewCalls();
            Thread.sleep(WATCHDOG_LEASE.toMillis()
                    + 100); // three renewal intervals (a third of the lease each), and a margin
            Figures settled = figures();
            if (settled.renewCalls() != renewals) {
                throw new AssertionError(
                        "renewals went on after every lock was released: " + renewals + " -> " + settled.renewCalls());
            }
            return settled;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "not back at the baseline after " + atMost + ":\n  baseline " + baseline + "\n  now      "
                            + last.get(),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static int lockkitThreads() {
        int n = 0;
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            if (t.getThreadName().startsWith("lockkit-")) {
                n++;
            }
        }
        return n;
    }

    private static long usedHeapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }

    @Override
    public void close() {
        factory.close();
        scheduler.shutdownNow();
    }

    /**
     * What must return to its baseline.
     *
     * @param threads live JVM threads
     * @param lockkitThreads live threads named {@code lockkit-*} (the provider's pub/sub thread, the schedulers)
     * @param redisChannels channels with subscribers in Redis ({@code PUBSUB CHANNELS})
     * @param waitedChannelSubscribers {@code PUBSUB NUMSUB} summed over the channels of the names waited for
     * @param providerChannels lock channels the provider is subscribed to
     * @param openSubscriptions subscriptions the core holds open
     * @param keys Redis keys ({@code DBSIZE})
     * @param pendingTasks tasks queued on the factory's scheduler (renewal ticks, subscription lingers)
     * @param renewCalls renewal calls so far
     * @param usedHeap used heap after {@code System.gc()}, in bytes
     */
    public record Figures(
            int threads,
            int lockkitThreads,
            int redisChannels,
            long waitedChannelSubscribers,
            int providerChannels,
            int openSubscriptions,
            long keys,
            int pendingTasks,
            long renewCalls,
            long usedHeap) {

        /** Heap may grow by this much (JIT, class data, caches of the JDK) without counting as a leak. */
        public static final long HEAP_MARGIN = 32L << 20;
        /** Threads of the JVM or the test harness that come and go (GC helpers, JUnit timeouts). */
        public static final int THREAD_MARGIN = 2;

        boolean backTo(Figures baseline) {
            return threads <= baseline.threads + THREAD_MARGIN
                    && lockkitThreads == baseline.lockkitThreads
                    && redisChannels == baseline.redisChannels
                    && waitedChannelSubscribers == baseline.waitedChannelSubscribers
                    && providerChannels == baseline.providerChannels
                    && openSubscriptions == baseline.openSubscriptions
                    && keys == baseline.keys
                    && pendingTasks == baseline.pendingTasks
                    && usedHeap <= baseline.usedHeap + HEAP_MARGIN;
        }

        @Override
        public String toString() {
            return String.format(
                    "threads %d (lockkit %d), Redis channels %d (NUMSUB of waited locks %d), provider channels %d,"
                            + " open subscriptions %d, keys %d, pending scheduler tasks %d, renewal calls %d, used heap %.2f MB",
                    threads,
                    lockkitThreads,
                    redisChannels,
                    waitedChannelSubscribers,
                    providerChannels,
                    openSubscriptions,
                    keys,
                    pendingTasks,
                    renewCalls,
                    usedHeap / 1048576.0);
        }
    }
}
