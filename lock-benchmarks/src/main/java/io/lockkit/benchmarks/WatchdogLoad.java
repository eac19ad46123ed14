package io.lockkit.benchmarks;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.jedis.JedisLockProvider;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * P5: many locks held under the watchdog (30 s lease, renewed every 10 s) for a while, with
 * nothing else happening. It counts the client commands per second (MONITOR; the commands scripts
 * run apart), the renewal ticks, the client round trips on the wire
 * ({@link RoundTrips}) and the Redis CPU it costs. lockkit and Redisson run side by side, each on
 * its own Redis (counts and CPU time do not depend on the other's timing); the floor has no
 * watchdog.
 */
final class WatchdogLoad {

    private static final int ACQUIRING_THREADS = 8;

    record Result(
            Library library,
            int locks,
            double acquireSeconds,
            double seconds,
            double clientCommandsPerSecond,
            Map<String, Long> clientCommands,
            double scriptCallsPerSecond,
            long renewalTicks,
            String ticksCounted,
            double renewalsPerTick,
            long maxRenewalsPerTick,
            double meanTickMillis,
            long roundTrips,
            double roundTripsPerTick,
            double medianRoundTripsPerTick,
            long mostRoundTripsInATick,
            double redisCpuPercent,
            long lostHolds,
            List<Long> clientCommandsPer10s,
            List<String> tickDetail) {}

    private WatchdogLoad() {}

    /** Runs lockkit on {@code lockkitRedis} and Redisson on {@code redissonRedis} at the same time. */
    static List<Result> run(RedisAdmin lockkitRedis, RedisAdmin redissonRedis, int locks, Duration window)
            throws Exception {
        ExecutorService both = Executors.newFixedThreadPool(2);
        try {
            Future<Result> redisson = both.submit(() -> redisson(redissonRedis, locks, window));
            Future<Result> lockkit = both.submit(() -> lockkit(lockkitRedis, locks, window));
            return List.of(lockkit.get(), redisson.get());
        } finally {
            both.shutdownNow();
        }
    }

    static Result lockkit(RedisAdmin redis, int locks, Duration window) throws Exception {
        RoundTrips wire = new RoundTrips();
        URI u = URI.create(redis.uri());
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .clientName("bench-lockkit-p5")
                .socketTimeoutMillis(2000)
                .connectionTimeoutMillis(2000)
                .build();
        // The pool JedisLockProvider builds by default (16 command connections + 1 pub/sub), over counting sockets.
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(17);
        pool.setMaxIdle(17);
        pool.setMaxWait(Duration.ofSeconds(2));
        pool.setJmxEnabled(false);
        try (RedisClient client = RedisClient.builder()
                .connectionProvider(new PooledConnectionProvider(
                        new ConnectionFactory(
                                wire.jedisSockets(new HostAndPort(u.getHost(), u.getPort()), 2000), config),
                        pool))
                .build()) {
            CountingProvider provider = new CountingProvider(JedisLockProvider.create(client), wire::turns);
            try (DistributedLockFactory factory = DistributedLockFactory.create(provider)) {
                ConcurrentLinkedQueue<LockHandle> handles = new ConcurrentLinkedQueue<>();
                long a0 = System.nanoTime();
                inParallel(locks, i -> handles.add(factory.acquire("p5-" + i)));
                double acquireSeconds = (System.nanoTime() - a0) / 1e9;

                Window w = Window.open(redis);
                wire.reset();
                provider.reset();
                w.await(window);
                Window.Counts counts = w.close();
                long turns = wire.turns();
                long ticks = provider.renewCalls();
                long lost = handles.stream().filter(h -> !h.isValid()).count();
                List<long[]> detail = provider.ticks();
                List<Double> perTick = detail.stream().map(t -> (double) t[1]).toList();
                return new Result(
                        Library.LOCKKIT,
                        locks,
                        acquireSeconds,
                        counts.seconds,
                        counts.clientPerSecond(),
                        counts.client,
                        counts.scriptPerSecond(),
                        ticks,
                        "calls of LockProvider.renew",
                        ticks == 0 ? Double.NaN : (double) provider.renewals() / ticks,
                        provider.maxRenewals(),
                        ticks == 0 ? Double.NaN : provider.renewNanos() / 1e6 / ticks,
                        turns,
                        ticks == 0 ? Double.NaN : (double) turns / ticks,
                        Stats.median(perTick),
                        detail.stream().mapToLong(t -> t[1]).max().orElse(0),
                        counts.cpuPercent(),
                        lost,
                        counts.clientPer10s,
                        detail.stream()
                                .map(t -> t[0] + " renewals, " + t[1] + " round trips, "
                                        + String.format(java.util.Locale.ROOT, "%.1f ms", t[2] / 1e3))
                                .toList());
            }
        }
    }

    static Result redisson(RedisAdmin redis, int locks, Duration window) throws Exception {
        RoundTrips wire = new RoundTrips();
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri()).setClientName("bench-redisson-p5");
        config.setNettyHook(wire.redissonHook());
        RedissonClient redisson = Redisson.create(config);
        try {
            long a0 = System.nanoTime();
            inParallel(locks, i -> redisson.getLock("p5-" + i).lock());
            double acquireSeconds = (System.nanoTime() - a0) / 1e9;

            Window w = Window.open(redis);
            wire.reset();
            w.await(window);
            Window.Counts counts = w.close();
            long turns = wire.turns(); // PINGs left out by the counting handler
            long ticks = wire.bursts(Duration.ofSeconds(2));
            long held = 0;
            for (int i = 0; i < locks; i += Math.max(1, locks / 100)) {
                held += redisson.getLock("p5-" + i).isLocked() ? 0 : 1;
            }
            return new Result(
                    Library.REDISSON,
                    locks,
                    acquireSeconds,
                    counts.seconds,
                    counts.clientPerSecond(),
                    counts.client,
                    counts.scriptPerSecond(),
                    ticks,
                    "bursts of round trips at least 2 s apart (one renewal task per 10 s)",
                    locks,
                    locks,
                    Double.NaN,
                    turns,
                    ticks == 0 ? Double.NaN : (double) turns / ticks,
                    Double.NaN,
                    0,
                    counts.cpuPercent(),
                    held,
                    counts.clientPer10s,
                    List.of());
        } finally {
            redisson.shutdown(0, 5, TimeUnit.SECONDS);
        }
    }

    interface IndexedTask {
        void run(int i) throws Exception;
    }

    private static void inParallel(int count, IndexedTask task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(ACQUIRING_THREADS);
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (int t = 0; t < ACQUIRING_THREADS; t++) {
                int first = t;
                Callable<Void> slice = () -> {
                    for (int i = first; i < count; i += ACQUIRING_THREADS) {
                        task.run(i);
                    }
                    return null;
                };
                futures.add(pool.submit(slice));
            }
            for (Future<Void> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /**
     * A measured window on one Redis: statistics reset and MONITOR counting client commands from
     * its start, sampled every 10 s.
     */
    private static final class Window {
        private final RedisAdmin redis;
        private final MonitorCounter monitor;
        private final long t0;
        private final double cpu0;
        private final List<Long> per10s = new ArrayList<>();

        private Window(RedisAdmin redis) {
            this.redis = redis;
            this.monitor =
                    new MonitorCounter(redis.server().host(), redis.server().port());
            redis.resetStats();
            this.cpu0 = redis.cpuSeconds();
            monitor.begin(redis);
            this.t0 = System.nanoTime();
        }

        static Window open(RedisAdmin redis) {
            return new Window(redis);
        }

        void await(Duration window) throws InterruptedException {
            long end = t0 + window.toNanos();
            long previous = 0;
            for (long next = t0 + TimeUnit.SECONDS.toNanos(10); ; next += TimeUnit.SECONDS.toNanos(10)) {
                long stop = Math.min(next, end);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, stop - System.nanoTime()));
                long sent = monitor.clientTotal();
                per10s.add(sent - previous);
                previous = sent;
                if (stop == end) {
                    return;
                }
            }
        }

        record Counts(
                double seconds, Map<String, Long> client, long script, double cpuSeconds, List<Long> clientPer10s) {
            double clientPerSecond() {
                return RedisAdmin.sum(client) / seconds;
            }

            double scriptPerSecond() {
                return script / seconds;
            }

            double cpuPercent() {
                return 100 * cpuSeconds / seconds;
            }
        }

        Counts close() {
            Map<String, Long> client = monitor.end(redis);
            double seconds = (System.nanoTime() - t0) / 1e9;
            double cpu = redis.cpuSeconds() - cpu0;
            long script = monitor.scriptCommands();
            monitor.close();
            return new Counts(seconds, client, script, cpu, List.copyOf(per10s));
        }
    }
}
