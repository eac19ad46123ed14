package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchClient.BenchLock;
import io.lockkit.benchmarks.Stats.Samples;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The contention driver (P3, P4): several clients, each playing a process with its own
 * connections, and threads in each that lock one hot name, bump a counter, unlock, and go again,
 * with no pause. It measures acquisitions per second, the hand-off (from the releasing thread's
 * {@code unlock()} call to the next holder's {@code lock()} return, whoever that is), waits, and
 * the Redis commands clients send per acquisition.
 *
 * <p>Phases: warm-up, then the measured window (statistics reset at its start, read at its end;
 * optionally with MONITOR counting the commands clients send), then the threads finish their
 * current turn and stop. A plain (unsynchronized) counter bumped under the lock checks
 * mutual exclusion: lost updates would show as a difference from the atomic count.
 */
final class Contention implements AutoCloseable {

    /**
     * What one contention run measured. Times in the unit their name says. Client commands come
     * from MONITOR when the run counted them (else empty / NaN); executed calls (client commands
     * and the commands their scripts ran) from {@code INFO commandstats}.
     */
    record Result(
            Library library,
            int clients,
            int threadsPerClient,
            int contenders,
            long acquisitions,
            double seconds,
            double acquisitionsPerSecond,
            double handoffP50Micros,
            double handoffP90Micros,
            double handoffP99Micros,
            HandOffs handOffs,
            double waitP50Millis,
            double waitP99Millis,
            double maxWaitMillis,
            boolean monitored,
            Map<String, Long> clientCommands,
            double commandsPerAcquisition,
            double scriptCallsPerAcquisition,
            Map<String, Long> executedCalls,
            double executedPerAcquisition,
            long lostUpdates,
            long errors,
            String firstError) {}

    /**
     * Who took the lock after each release: the releasing thread itself (it came straight back),
     * another thread of the same client, or a thread of another client; shares and hand-off p50s.
     */
    record HandOffs(
            double sameThreadShare,
            double sameClientShare,
            double otherClientShare,
            double sameThreadP50Micros,
            double sameClientP50Micros,
            double otherClientP50Micros) {}

    private static final int SAME_THREAD = 0;
    private static final int SAME_CLIENT = 1;
    private static final int OTHER_CLIENT = 2;

    /** One contender's recordings. */
    private static final class Recorder {
        final int client;
        final int id;
        final Samples wait = new Samples();
        final Samples[] handoff = {new Samples(), new Samples(), new Samples()};

        /** @param id {@code client * 10_000 + thread index}, so the client can be read back from it */
        Recorder(int client, int id) {
            this.client = client;
            this.id = id;
        }
    }

    private final Library library;
    private final RedisAdmin redis;
    private final List<BenchClient> clients = new ArrayList<>();

    Contention(Library library, RedisAdmin redis, int clientCount, String tag) {
        this(library, redis, redis.uri(), clientCount, tag);
    }

    /** Clients that connect to {@code clientUri} (e.g. through a {@link DelayProxy}); {@code redis} counts. */
    Contention(Library library, RedisAdmin redis, String clientUri, int clientCount, String tag) {
        this.library = library;
        this.redis = redis;
        try {
            for (int i = 0; i < clientCount; i++) {
                clients.add(BenchClient.open(
                        library, clientUri, "bench-" + library.name().toLowerCase() + "-" + tag + "-" + i));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Shared between the contenders of one run. */
    private static final class Shared {
        volatile boolean stop;
        volatile boolean measuring;
        volatile long lastReleaseStart;
        volatile int lastReleaser = -1; // written with lastReleaseStart, before unlock
        final AtomicLong acquisitions = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicReference<String> firstError = new AtomicReference<>();
        long guarded; // bumped under the lock only, deliberately not atomic
    }

    /**
     * Runs {@code threadsPerClient} contenders on each of the first {@code clientCount} clients.
     *
     * @param monitor whether MONITOR counts the client commands of the measured window (it slows
     *     Redis, so rates measured with it are lower)
     */
    Result run(
            String lockName, int clientCount, int threadsPerClient, Duration warmup, Duration measure, boolean monitor)
            throws InterruptedException {
        return run(lockName, clientCount, threadsPerClient, warmup, measure, monitor, false, Duration.ZERO);
    }

    /**
     * As {@link #run(String, int, int, Duration, Duration, boolean)}; with {@code handOffOnly}, a
     * contender that released the lock asks for it again only after another contender took it, so
     * that every release hands the lock to another waiter (P7: no waiter of the releasing thread's
     * own, the library cannot let the releasing thread back in ahead of the waiters); each holder
     * keeps the lock for {@code hold}. P7 holds longer than a round trip: the contenders share one
     * JVM, so a contender hears at once that another took the lock, which processes do not; an
     * attempt it sends then must find the lock held and be answered before the release, else a
     * library whose waiters retry would meet the release with an attempt already on its way.
     */
    Result run(
            String lockName,
            int clientCount,
            int threadsPerClient,
            Duration warmup,
            Duration measure,
            boolean monitor,
            boolean handOffOnly,
            Duration hold)
            throws InterruptedException {
        Shared shared = new Shared();
        List<Thread> threads = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        for (int c = 0; c < clientCount; c++) {
            BenchClient client = clients.get(c);
            for (int t = 0; t < threadsPerClient; t++) {
                Recorder recorder = new Recorder(c, c * 10_000 + t);
                recorders.add(recorder);
                BenchLock lock = client.lock(lockName);
                Thread thread = new Thread(
                        () -> contend(lock, shared, recorder, handOffOnly, hold.toNanos()),
                        "bench-" + library.name().toLowerCase() + "-c" + c + "-t" + t);
                thread.setDaemon(true);
                threads.add(thread);
            }
        }
        MonitorCounter counter = null;
        // Start the contenders in a shuffled (seeded) order: a FIFO lock keeps its first queue order as a
        // cycle, and client-by-client starts would make most hand-offs stay within one client.
        List<Thread> startOrder = new ArrayList<>(threads);
        java.util.Collections.shuffle(startOrder, new java.util.Random(lockName.hashCode()));
        startOrder.forEach(Thread::start);
        try {
            TimeUnit.NANOSECONDS.sleep(warmup.toNanos());
            if (monitor) {
                counter =
                        new MonitorCounter(redis.server().host(), redis.server().port());
            }
            redis.resetStats();
            if (counter != null) {
                counter.begin(redis);
            }
            long a0 = shared.acquisitions.get();
            long t0 = System.nanoTime();
            shared.measuring = true;
            TimeUnit.NANOSECONDS.sleep(measure.toNanos());
            shared.measuring = false;
            long a1 = shared.acquisitions.get();
            long t1 = System.nanoTime();
            Map<String, Long> clientCommands = counter != null ? counter.end(redis) : Map.of();
            long scriptCalls = counter != null ? counter.scriptCommands() : 0;
            Map<String, Long> executed = RedisAdmin.executed(redis.commandCalls());

            shared.stop = true;
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                if (t.isAlive()) {
                    throw new IllegalStateException(t.getName() + " did not finish within 60 s of the stop");
                }
            }
            long acquisitions = a1 - a0;
            double seconds = (t1 - t0) / 1e9;
            List<Samples> all = new ArrayList<>();
            recorders.forEach(rec -> all.addAll(List.of(rec.handoff)));
            Samples handoff = Samples.merge(all);
            Samples wait = Samples.merge(recorders.stream().map(rec -> rec.wait).toList());
            Samples[] byKind = new Samples[3];
            for (int k = 0; k < 3; k++) {
                int kind = k;
                byKind[k] = Samples.merge(
                        recorders.stream().map(rec -> rec.handoff[kind]).toList());
            }
            double n = Math.max(1, handoff.count);
            HandOffs handOffs = new HandOffs(
                    byKind[SAME_THREAD].count / n,
                    byKind[SAME_CLIENT].count / n,
                    byKind[OTHER_CLIENT].count / n,
                    byKind[SAME_THREAD].percentile(50) / 1e3,
                    byKind[SAME_CLIENT].percentile(50) / 1e3,
                    byKind[OTHER_CLIENT].percentile(50) / 1e3);
            double perAcquisition = acquisitions > 0 ? 1.0 / acquisitions : Double.NaN;
            return new Result(
                    library,
                    clientCount,
                    threadsPerClient,
                    clientCount * threadsPerClient,
                    acquisitions,
                    seconds,
                    acquisitions / seconds,
                    handoff.percentile(50) / 1e3,
                    handoff.percentile(90) / 1e3,
                    handoff.percentile(99) / 1e3,
                    handOffs,
                    wait.percentile(50) / 1e6,
                    wait.percentile(99) / 1e6,
                    wait.max() / 1e6,
                    monitor,
                    clientCommands,
                    monitor ? RedisAdmin.sum(clientCommands) * perAcquisition : Double.NaN,
                    monitor ? scriptCalls * perAcquisition : Double.NaN,
                    executed,
                    RedisAdmin.sum(executed) * perAcquisition,
                    shared.acquisitions.get() - shared.guarded,
                    shared.errors.get(),
                    shared.firstError.get());
        } finally {
            shared.stop = true;
            if (counter != null) {
                counter.close();
            }
        }
    }

    private static void contend(BenchLock lock, Shared shared, Recorder me, boolean handOffOnly, long holdNanos) {
        while (!shared.stop) {
            long t0 = System.nanoTime();
            try {
                lock.lock();
            } catch (RuntimeException e) {
                error(shared, e);
                continue;
            }
            long t1 = System.nanoTime();
            if (shared.measuring) {
                long previous = shared.lastReleaseStart;
                int releaser = shared.lastReleaser;
                if (previous != 0 && releaser >= 0) {
                    int kind = releaser == me.id
                            ? SAME_THREAD
                            : releaser / 10_000 == me.client ? SAME_CLIENT : OTHER_CLIENT;
                    me.handoff[kind].add(t1 - previous);
                }
                me.wait.add(t1 - t0);
            }
            shared.guarded++;
            long mine = shared.acquisitions.incrementAndGet();
            if (holdNanos > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(holdNanos);
            }
            shared.lastReleaser = me.id;
            shared.lastReleaseStart = System.nanoTime();
            try {
                lock.unlock();
            } catch (RuntimeException e) {
                error(shared, e);
            }
            while (handOffOnly && shared.acquisitions.get() == mine && !shared.stop) {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000); // until another contender took it
            }
        }
    }

    private static void error(Shared shared, RuntimeException e) {
        shared.errors.incrementAndGet();
        shared.firstError.compareAndSet(null, e.toString());
    }

    @Override
    public void close() {
        for (BenchClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                System.err.println("closing " + c.connectionName() + " failed: " + e);
            }
        }
    }
}
