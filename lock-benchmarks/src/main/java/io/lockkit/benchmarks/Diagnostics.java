package io.lockkit.benchmarks;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockOptions;
import io.lockkit.benchmarks.BenchClient.BenchLock;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario D (diagnosis, one run): where lockkit's uncontended time goes.
 * The same lock + unlock pair is taken through layers of lockkit (the provider's scripts alone,
 * the factory's {@code tryLock()} without wait bookkeeping, the full {@code lock()}) beside the
 * floor and Redisson, on 1
 * thread and on 32, and for each the cost is split: Redis CPU and script time per pair (INFO
 * cpu, commandstats usec), client CPU per pair and client context switches per pair.
 */
final class Diagnostics {

    record Row(
            String variant,
            int threads,
            double pairsPerSecond,
            double p50Micros,
            double redisCpuMicrosPerPair,
            double scriptMicrosPerPair,
            double clientCpuMicrosPerPair,
            double contextSwitchesPerPair,
            double redisCpuPercent,
            double clientCpuPercent) {}

    interface Pair {
        void run() throws Exception;
    }

    interface Variant {
        /** A pair for one thread (its own name), plus a close action. */
        Pair open(int thread) throws Exception;
    }

    private static volatile String tag = "D";

    private Diagnostics() {}

    static List<Row> run(RedisAdmin redis, Duration warmup, Duration measure, Path out) throws Exception {
        List<Row> rows = new ArrayList<>();
        String uri = redis.uri();
        // A first pass that is thrown away, so JIT compilation does not land in the first variant's window.
        List<Row> discarded = new ArrayList<>();
        for (int threads : List.of(1, 1, 32)) {
            List<Row> into = rows.isEmpty() && discarded.isEmpty() ? discarded : rows;
            tag = into == discarded ? "D (warm-up, discarded)" : "D";
            try (FloorClient floor = new FloorClient(uri, "diag-floor")) {
                into.add(measure(
                        redis,
                        "raw floor: lock + unlock",
                        threads,
                        warmup,
                        measure,
                        t -> lockPair(floor.lock("diag-floor-" + t))));
            }
            try (LockProvider provider = LockkitClient.provider(uri, "diag-lockkit-spi")) {
                into.add(measure(
                        redis, "lockkit provider only: tryAcquire(no wait) + release", threads, warmup, measure, t -> {
                            String name = "diag-spi-" + t;
                            String owner = "diag:" + t;
                            LockRequest request =
                                    new LockRequest(name, owner, LockOptions.DEFAULT_WATCHDOG_LEASE, Duration.ZERO);
                            return () -> {
                                provider.tryAcquire(request);
                                provider.release(name, owner);
                            };
                        }));
            }
            try (DistributedLockFactory f =
                    DistributedLockFactory.create(LockkitClient.provider(uri, "diag-lockkit-try"))) {
                into.add(measure(redis, "lockkit factory: tryLock() + unlock()", threads, warmup, measure, t -> {
                    DistributedLock lock = f.getLock("diag-try-" + t);
                    return () -> {
                        if (!lock.tryLock()) {
                            throw new IllegalStateException("uncontended tryLock failed");
                        }
                        lock.unlock();
                    };
                }));
            }
            try (DistributedLockFactory f =
                    DistributedLockFactory.create(LockkitClient.provider(uri, "diag-lockkit-lock"))) {
                into.add(measure(redis, "lockkit factory: lock() + unlock()", threads, warmup, measure, t -> {
                    DistributedLock lock = f.getLock("diag-lock-" + t);
                    return () -> {
                        lock.lock();
                        lock.unlock();
                    };
                }));
            }
            try (RedissonBenchClient redisson = new RedissonBenchClient(uri, "diag-redisson")) {
                into.add(measure(
                        redis,
                        "Redisson: lock() + unlock()",
                        threads,
                        warmup,
                        measure,
                        t -> lockPair(redisson.lock("diag-redisson-" + t))));
            }
        }
        Files.writeString(out.resolve("raw").resolve("diagnostics.json"), Json.write(rows));
        return rows;
    }

    private static Pair lockPair(BenchLock lock) {
        return () -> {
            lock.lock();
            lock.unlock();
        };
    }

    private static Row measure(
            RedisAdmin redis, String variant, int threads, Duration warmup, Duration measure, Variant v)
            throws Exception {
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong pairs = new AtomicLong();
        List<Stats.Samples> samples = new ArrayList<>();
        List<Thread> list = new ArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            Pair pair = v.open(t);
            Stats.Samples mine = new Stats.Samples();
            samples.add(mine);
            Thread thread = new Thread(
                    () -> {
                        try {
                            while (!stop.get()) {
                                long t0 = System.nanoTime();
                                pair.run();
                                if (measuring.get()) {
                                    mine.add(System.nanoTime() - t0);
                                    pairs.incrementAndGet();
                                }
                            }
                        } catch (Exception e) {
                            failures.incrementAndGet();
                            e.printStackTrace();
                        }
                    },
                    "diag-" + t);
            thread.setDaemon(true);
            list.add(thread);
        }
        list.forEach(Thread::start);
        Thread.sleep(warmup.toMillis());
        redis.resetStats();
        double redisCpu0 = redis.cpuSeconds();
        long clientCpu0 = processCpuNanos();
        long switches0 = contextSwitches();
        long t0 = System.nanoTime();
        measuring.set(true);
        Thread.sleep(measure.toMillis());
        measuring.set(false);
        long t1 = System.nanoTime();
        long clientCpu1 = processCpuNanos();
        long switches1 = contextSwitches();
        double redisCpu1 = redis.cpuSeconds();
        Map<String, Long> micros = redis.commandMicros();
        stop.set(true);
        for (Thread t : list) {
            t.join(10_000);
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(variant + ": " + failures.get() + " threads failed");
        }
        long n = Math.max(1, pairs.get());
        double seconds = (t1 - t0) / 1e9;
        long scriptMicros = micros.getOrDefault("evalsha", 0L) + micros.getOrDefault("eval", 0L);
        Row row = new Row(
                variant,
                threads,
                n / seconds,
                Stats.Samples.merge(samples).percentile(50) / 1e3,
                (redisCpu1 - redisCpu0) * 1e6 / n,
                (double) scriptMicros / n,
                (clientCpu1 - clientCpu0) / 1e3 / n,
                (double) (switches1 - switches0) / n,
                100 * (redisCpu1 - redisCpu0) / seconds,
                100 * (clientCpu1 - clientCpu0) / 1e9 / seconds);
        BenchmarkMain.log(
                "%s %2d threads %-58s %,9.0f pairs/s p50 %6.1f µs | Redis CPU %5.1f µs/pair (%3.0f%%), scripts %5.1f µs/pair"
                        + " | client CPU %5.1f µs/pair (%3.0f%%), %4.1f context switches/pair",
                tag,
                threads,
                variant,
                row.pairsPerSecond(),
                row.p50Micros(),
                row.redisCpuMicrosPerPair(),
                row.redisCpuPercent(),
                row.scriptMicrosPerPair(),
                row.clientCpuMicrosPerPair(),
                row.clientCpuPercent(),
                row.contextSwitchesPerPair());
        return row;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Voluntary and involuntary context switches of every thread of this process so far (Linux; 0 elsewhere). */
    private static long contextSwitches() {
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            total += Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return total;
    }

    static String markdown(List<Row> rows) {
        StringBuilder md = new StringBuilder();
        md.append("Scenario D (one run): one lock + unlock pair per iteration, each thread on ")
                .append(
                        "a name of its own, through layers of lockkit beside the floor and Redisson. Redis CPU (user + sys) and the time ")
                .append(
                        "Redis spent in EVAL/EVALSHA (commandstats usec, script calls included) per pair; client CPU is this whole ")
                .append(
                        "JVM's per pair; context switches are all of this JVM's threads' (voluntary + involuntary) per pair. Redis and ")
                .append("the JVM each have one CPU of their own (pinned).\n\n");
        TextTable table = TextTable.of(
                        "threads",
                        "variant",
                        "pairs/s",
                        "p50",
                        "Redis CPU / pair",
                        "in scripts / pair",
                        "client CPU / pair",
                        "context switches / pair",
                        "Redis CPU",
                        "client CPU")
                .rightFrom(2)
                .right(0);
        for (Row r : rows) {
            table.row(
                    String.valueOf(r.threads()),
                    r.variant(),
                    String.format(Locale.ROOT, "%,.0f", r.pairsPerSecond()),
                    String.format(Locale.ROOT, "%.1f µs", r.p50Micros()),
                    String.format(Locale.ROOT, "%.1f µs", r.redisCpuMicrosPerPair()),
                    String.format(Locale.ROOT, "%.1f µs", r.scriptMicrosPerPair()),
                    String.format(Locale.ROOT, "%.1f µs", r.clientCpuMicrosPerPair()),
                    String.format(Locale.ROOT, "%.1f", r.contextSwitchesPerPair()),
                    String.format(Locale.ROOT, "%.0f %%", r.redisCpuPercent()),
                    String.format(Locale.ROOT, "%.0f %%", r.clientCpuPercent()));
        }
        md.append(table.markdown());
        return md.toString();
    }
}
