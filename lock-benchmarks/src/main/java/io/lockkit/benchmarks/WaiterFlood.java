package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchClient.BenchLock;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * P6: one client, one held lock, 1,000 platform threads waiting for it. It counts what the waiters
 * cost the client beyond the threads themselves: platform threads the library started, Redis
 * connections and pub/sub connections (by the connections' client name), against a baseline taken
 * after one uncontended lock and unlock on a fresh client; then the holder releases and the time
 * until every waiter has had its turn (lock, unlock) is the drain time. One drain of 1,000 hand-offs
 * lasts about a tenth of a second, so a passing disturbance of the machine moves it a lot: the
 * flood is repeated {@link #DRAINS} times on the same client, and the median drain is the result.
 */
final class WaiterFlood {

    /** Floods per run; the counts of threads and connections are taken in the first. */
    static final int DRAINS = 3;

    /** @param drainMillis the median of the drains; {@code drains} every one of them */
    record Result(
            Library library,
            int waiters,
            int extraPlatformThreads,
            List<String> extraThreadNames,
            int baselineConnections,
            int extraConnections,
            int pubSubConnections,
            int baselinePubSubConnections,
            double drainMillis,
            long errors,
            String firstError,
            List<Double> drains) {

        Result(
                Library library,
                int waiters,
                int extraPlatformThreads,
                List<String> extraThreadNames,
                int baselineConnections,
                int extraConnections,
                int pubSubConnections,
                int baselinePubSubConnections,
                double drainMillis,
                long errors,
                String firstError) {
            this(
                    library,
                    waiters,
                    extraPlatformThreads,
                    extraThreadNames,
                    baselineConnections,
                    extraConnections,
                    pubSubConnections,
                    baselinePubSubConnections,
                    drainMillis,
                    errors,
                    firstError,
                    List.of(drainMillis));
        }
    }

    private WaiterFlood() {}

    static Result run(Library library, RedisAdmin redis, int waiters, String tag) throws InterruptedException {
        String connectionName = "bench-" + library.name().toLowerCase() + "-" + tag;
        String lockName = "p6-" + tag;
        try (BenchClient client = BenchClient.open(library, redis.uri(), connectionName)) {
            BenchLock holder = client.lock(lockName);
            holder.lock();
            holder.unlock();
            Thread.sleep(200);
            Set<Long> baseThreads = threadIds();
            int baseConnections = redis.connections(connectionName, null);
            int basePubSub = redis.connections(connectionName, "pubsub");

            AtomicLong errors = new AtomicLong();
            List<String> firstError = new ArrayList<>();
            Map<Long, String> extra = new TreeMap<>();
            int connections = 0;
            int pubSub = 0;
            List<Double> drains = new ArrayList<>();
            for (int drain = 0; drain < DRAINS; drain++) {
                holder.lock();
                CountDownLatch done = new CountDownLatch(waiters);
                List<Thread> threads = new ArrayList<>(waiters);
                for (int i = 0; i < waiters; i++) {
                    Thread t = new Thread(
                            () -> {
                                BenchLock lock = client.lock(lockName);
                                try {
                                    lock.lock();
                                    lock.unlock();
                                } catch (RuntimeException e) {
                                    errors.incrementAndGet();
                                    synchronized (firstError) {
                                        if (firstError.isEmpty()) {
                                            firstError.add(e.toString());
                                        }
                                    }
                                } finally {
                                    done.countDown();
                                }
                            },
                            "waiter-" + i);
                    t.setDaemon(true);
                    threads.add(t);
                    t.start();
                }
                awaitParked(threads);

                if (drain == 0) {
                    Set<Long> waiterIds = new HashSet<>();
                    threads.forEach(t -> waiterIds.add(t.getId()));
                    for (Thread t : Thread.getAllStackTraces().keySet()) {
                        if (!baseThreads.contains(t.getId()) && !waiterIds.contains(t.getId())) {
                            extra.put(t.getId(), t.getName());
                        }
                    }
                    connections = redis.connections(connectionName, null);
                    pubSub = redis.connections(connectionName, "pubsub");
                }

                long t0 = System.nanoTime();
                holder.unlock();
                if (!done.await(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(
                            library + ": " + done.getCount() + " of " + waiters + " waiters still waiting after 120 s");
                }
                drains.add((System.nanoTime() - t0) / 1e6);
                for (Thread t : threads) {
                    t.join(5000);
                }
            }
            List<Double> sorted = new ArrayList<>(drains);
            sorted.sort(null);
            return new Result(
                    library,
                    waiters,
                    extra.size(),
                    List.copyOf(extra.values()),
                    baseConnections,
                    connections - baseConnections,
                    pubSub,
                    basePubSub,
                    sorted.get(sorted.size() / 2),
                    errors.get(),
                    firstError.isEmpty() ? null : firstError.get(0),
                    List.copyOf(drains));
        }
    }

    private static Set<Long> threadIds() {
        Set<Long> ids = new HashSet<>();
        for (long id : ManagementFactory.getThreadMXBean().getAllThreadIds()) {
            ids.add(id);
        }
        return ids;
    }

    /** Waits until every waiter is parked (WAITING or TIMED_WAITING) in three checks in a row, 100 ms apart. */
    private static void awaitParked(List<Thread> threads) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int stable = 0;
        while (stable < 3) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("the waiters did not all park within 60 s");
            }
            Thread.sleep(100);
            boolean all = true;
            for (Thread t : threads) {
                Thread.State s = t.getState();
                if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
                    all = false;
                    break;
                }
            }
            stable = all ? stable + 1 : 0;
        }
    }
}
