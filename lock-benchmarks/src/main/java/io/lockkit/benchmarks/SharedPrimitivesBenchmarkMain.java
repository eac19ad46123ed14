package io.lockkit.benchmarks;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockHandle;
import io.lockkit.MultiLockHandle;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The shared primitives beside Redisson's on one local Redis (pinned as {@link BenchmarkMain} pins
 * it), each library with default settings: lockkit's leased semaphore against
 * {@code RPermitExpirableSemaphore} (S: capacity 5), its read/write lock against
 * {@code RReadWriteLock} (R: 95 % reads), its fair lock against {@code RFairLock} (F), its
 * multi-lock of three names against {@code RedissonMultiLock} (M). For each,
 * one thread uncontended (latency, and the client commands per acquire+release counted by MONITOR
 * in a window of its own) and 2 clients × 8 threads on one name (operations per second, p99).
 * Writes {@code shared-primitives.md} to {@code --out}.
 */
public final class SharedPrimitivesBenchmarkMain {

    static final String COMMAND = "mvn -B -q install -DskipTests -pl lock-bom,lock-benchmarks -am && "
            + "mvn -B -q -pl lock-benchmarks exec:exec -Dbench.main=io.lockkit.benchmarks.SharedPrimitivesBenchmarkMain";
    private static final int RUNS = 3;
    private static final int CAPACITY = 5;
    private static final List<String> LIBS = List.of("lockkit", "Redisson");

    /** One library's primitives: each call acquires (waiting as long as it takes) and returns the release. */
    interface Lib extends AutoCloseable {
        Runnable permit(String name);

        Runnable read(String name);

        Runnable write(String name);

        Runnable fair(String name);

        /** The three names {@code <name>:1..3} at once. */
        Runnable all(String name);

        @Override
        void close();
    }

    /** Which primitive a measurement takes: a permit, a read-mostly mix, or the fair lock. */
    enum Kind {
        S("semaphore, capacity 5"),
        R("read/write lock, 95 % reads"),
        F("fair lock"),
        M("multi-lock of 3 names");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        /** What one operation of this kind does with {@code lib}: acquire, and return the release. */
        Function<String, Runnable> op(Lib lib) {
            return switch (this) {
                case S -> lib::permit;
                case R -> name -> ThreadLocalRandom.current().nextInt(100) < 95 ? lib.read(name) : lib.write(name);
                case F -> lib::fair;
                case M -> lib::all;
            };
        }
    }

    record Figures(double p50Micros, double p99Micros, double perSecond) {}

    private SharedPrimitivesBenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of("results");
        for (String a : args) {
            if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            }
        }
        String started =
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        RedisFixture fixture =
                RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();
        try (RedisServer server = fixture.start()) {
            int cores = Runtime.getRuntime().availableProcessors();
            String pinning =
                    MachineFacts.pin(BenchmarkMain.Settings.fullRun().with(1, Set.of(), true, out), server, cores);
            RedisAdmin redis = new RedisAdmin(server);
            Map<String, List<Figures>> alone = new TreeMap<>();
            Map<String, List<Figures>> contended = new TreeMap<>();
            Map<String, Double> commands = new TreeMap<>();
            for (int r = 0; r < RUNS; r++) {
                List<String> order = new ArrayList<>(LIBS);
                Collections.rotate(order, r);
                for (String lib : order) {
                    for (Kind kind : Kind.values()) {
                        String key = kind + " " + lib;
                        alone.computeIfAbsent(key, k -> new ArrayList<>()).add(uncontended(lib, kind, server.uri()));
                        contended.computeIfAbsent(key, k -> new ArrayList<>()).add(contended(lib, kind, server.uri()));
                        BenchmarkMain.log(
                                "run %d %s %s: alone %s, contended %s",
                                r + 1, lib, kind, last(alone, key), last(contended, key));
                    }
                }
            }
            for (String lib : LIBS) {
                for (Kind kind : Kind.values()) {
                    commands.put(kind + " " + lib, commandsPerOperation(lib, kind, redis));
                }
            }
            Files.createDirectories(out);
            String report = report(started, server, pinning, cores, alone, contended, commands);
            Files.writeString(out.resolve("shared-primitives.md"), report);
            System.out.println(report);
        }
        System.exit(0); // Redisson's threads must not keep the JVM up
    }

    private static Figures last(Map<String, List<Figures>> m, String key) {
        List<Figures> l = m.get(key);
        return l.get(l.size() - 1);
    }

    static Lib open(String lib, String uri, String connectionName) {
        return lib.equals("lockkit") ? lockkit(uri, connectionName) : redisson(uri, connectionName);
    }

    private static Lib lockkit(String uri, String connectionName) {
        DistributedLockFactory locks = DistributedLockFactory.create(LockkitClient.provider(uri, connectionName));
        return new Lib() {
            @Override
            public Runnable permit(String name) {
                DistributedSemaphore s = locks.getSemaphore(name, CAPACITY);
                try {
                    LockHandle h = s.acquire(1, locks.defaultOptions());
                    return h::release;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public Runnable read(String name) {
                return locked(locks.getReadWriteLock(name).readLock());
            }

            @Override
            public Runnable write(String name) {
                return locked(locks.getReadWriteLock(name).writeLock());
            }

            @Override
            public Runnable fair(String name) {
                return locked(locks.getFairLock(name));
            }

            @Override
            public Runnable all(String name) {
                try {
                    MultiLockHandle h = locks.acquireAll(List.of(name + ":1", name + ":2", name + ":3"));
                    return h::release;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }

            private Runnable locked(DistributedLock lock) {
                lock.lock();
                return lock::unlock;
            }

            @Override
            public void close() {
                locks.close();
            }
        };
    }

    private static Lib redisson(String uri, String connectionName) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setClientName(connectionName);
        RedissonClient redisson = Redisson.create(config);
        return new Lib() {
            @Override
            public Runnable permit(String name) {
                RPermitExpirableSemaphore s = redisson.getPermitExpirableSemaphore(name);
                try {
                    String id = s.acquire();
                    return () -> s.release(id);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public Runnable read(String name) {
                RReadWriteLock rw = redisson.getReadWriteLock(name);
                return locked(rw.readLock());
            }

            @Override
            public Runnable write(String name) {
                return locked(redisson.getReadWriteLock(name).writeLock());
            }

            @Override
            public Runnable fair(String name) {
                return locked(redisson.getFairLock(name));
            }

            @Override
            public Runnable all(String name) {
                return locked(redisson.getMultiLock(
                        redisson.getLock(name + ":1"), redisson.getLock(name + ":2"), redisson.getLock(name + ":3")));
            }

            private Runnable locked(RLock lock) {
                lock.lock();
                return lock::unlock;
            }

            @Override
            public void close() {
                redisson.shutdown(0, 5, TimeUnit.SECONDS);
            }
        };
    }

    /** The permits of Redisson's semaphore are set once per name; lockkit's name carries its capacity. */
    private static String prepared(String libName, Kind kind, String uri, String name) {
        if (libName.equals("Redisson") && kind == Kind.S) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            RedissonClient setup = Redisson.create(config);
            try {
                setup.getPermitExpirableSemaphore(name).trySetPermits(CAPACITY);
            } finally {
                setup.shutdown(0, 5, TimeUnit.SECONDS);
            }
        }
        return name;
    }

    /** One thread on its own name: 2,000 acquire+release of warm-up, then 10,000 measured. */
    private static Figures uncontended(String libName, Kind kind, String uri) {
        try (Lib lib = open(libName, uri, "bench-s1-" + libName)) {
            String name = prepared(libName, kind, uri, "s1:" + libName + ":" + kind + ":" + System.nanoTime());
            Function<String, Runnable> op = kind.op(lib);
            for (int i = 0; i < 2_000; i++) {
                op.apply(name).run();
            }
            Stats.Samples samples = new Stats.Samples();
            long start = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                long t = System.nanoTime();
                op.apply(name).run();
                samples.add(System.nanoTime() - t);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Figures(samples.percentile(50) / 1e3, samples.percentile(99) / 1e3, 10_000 / seconds);
        }
    }

    /** 2 clients × 8 threads on one name; 1 s warm-up, 5 s measured. */
    private static Figures contended(String libName, Kind kind, String uri) throws InterruptedException {
        List<Lib> clients =
                List.of(open(libName, uri, "bench-s2-" + libName), open(libName, uri, "bench-s2-" + libName));
        try {
            String name = prepared(libName, kind, uri, "s2:" + libName + ":" + kind + ":" + System.nanoTime());
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            List<Stats.Samples> all = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (Lib client : clients) {
                Function<String, Runnable> op = kind.op(client);
                for (int t = 0; t < 8; t++) {
                    Stats.Samples mine = new Stats.Samples();
                    all.add(mine);
                    Thread worker = new Thread(() -> worker(op, name, go, measuring, stop, mine), "s2-worker");
                    worker.start();
                    threads.add(worker);
                }
            }
            go.countDown();
            Thread.sleep(1_000);
            measuring.set(true);
            long start = System.nanoTime();
            Thread.sleep(5_000);
            measuring.set(false);
            double seconds = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            Stats.Samples merged = Stats.Samples.merge(all);
            return new Figures(merged.percentile(50) / 1e3, merged.percentile(99) / 1e3, merged.count / seconds);
        } finally {
            clients.forEach(Lib::close);
        }
    }

    private static void worker(
            Function<String, Runnable> op,
            String name,
            CountDownLatch go,
            AtomicBoolean measuring,
            AtomicBoolean stop,
            Stats.Samples samples) {
        try {
            go.await();
        } catch (InterruptedException e) {
            return;
        }
        while (!stop.get()) {
            long t = System.nanoTime();
            op.apply(name).run();
            if (measuring.get()) {
                samples.add(System.nanoTime() - t);
            }
        }
    }

    /** The commands a library sends for one uncontended acquire+release (MONITOR, 500 of them). */
    private static double commandsPerOperation(String libName, Kind kind, RedisAdmin redis) {
        try (Lib lib = open(libName, redis.uri(), "bench-sc-" + libName)) {
            String name = prepared(libName, kind, redis.uri(), "sc:" + libName + ":" + kind);
            Function<String, Runnable> op = kind == Kind.R ? lib::read : kind.op(lib);
            op.apply(name).run(); // connections and subscriptions made before the window
            try (MonitorCounter monitor =
                    new MonitorCounter(redis.server().host(), redis.server().port())) {
                monitor.begin(redis);
                for (int i = 0; i < 500; i++) {
                    op.apply(name).run();
                }
                monitor.end(redis);
                return monitor.clientTotal() / 500.0;
            }
        }
    }

    private static String report(
            String started,
            RedisServer server,
            String pinning,
            int cores,
            Map<String, List<Figures>> alone,
            Map<String, List<Figures>> contended,
            Map<String, Double> commands) {
        StringBuilder s = new StringBuilder();
        s.append("# lockkit's shared primitives beside Redisson\n\n");
        s.append("Generated by `")
                .append(COMMAND)
                .append("` (from the repository root), ")
                .append(started)
                .append(". Figures are medians of ")
                .append(RUNS)
                .append(" runs.\n\n");
        s.append("Machine: ")
                .append(MachineFacts.cpuModel())
                .append(", ")
                .append(cores)
                .append(" cores; ")
                .append(pinning)
                .append("; Redis ")
                .append(server.version())
                .append(" (")
                .append(server.source())
                .append("), loopback; JDK ")
                .append(System.getProperty("java.runtime.version"))
                .append(".\n\n");
        s.append("| figure | lockkit | Redisson 4.7.0 | lockkit ÷ Redisson |\n|---|---:|---:|---:|\n");
        for (Kind kind : Kind.values()) {
            String what = kind.label;
            row(s, what + ": acquire+release p50, 1 thread (µs)", alone, kind, Figures::p50Micros);
            row(s, what + ": per second, 1 thread", alone, kind, Figures::perSecond);
            row(s, what + ": per second, 2 clients × 8 threads on one name", contended, kind, Figures::perSecond);
            row(s, what + ": p99, 2 clients × 8 threads (µs)", contended, kind, Figures::p99Micros);
            double k = commands.get(kind + " lockkit");
            double r = commands.get(kind + " Redisson");
            s.append(String.format(
                    Locale.ROOT,
                    "| %s: client commands per uncontended acquire+release%s (MONITOR) | %.2f | %.2f | %.2f× |%n",
                    what,
                    kind == Kind.R ? " of the read lock" : "",
                    k,
                    r,
                    k / r));
        }
        return s.toString();
    }

    private static void row(
            StringBuilder s,
            String label,
            Map<String, List<Figures>> m,
            Kind kind,
            java.util.function.ToDoubleFunction<Figures> f) {
        double lockkit = median(m.get(kind + " lockkit"), f);
        double redisson = median(m.get(kind + " Redisson"), f);
        s.append(String.format(
                Locale.ROOT, "| %s | %,.0f | %,.0f | %.2f× |%n", label, lockkit, redisson, lockkit / redisson));
    }

    private static double median(List<Figures> figures, java.util.function.ToDoubleFunction<Figures> f) {
        List<Double> values = new ArrayList<>();
        for (Figures x : figures) {
            values.add(f.applyAsDouble(x));
        }
        return Stats.median(values);
    }
}
