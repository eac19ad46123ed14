package io.lockkit.benchmarks;

import io.lockkit.DistributedLockFactory;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The primitives beside Redisson's on one local Redis (pinned as {@link BenchmarkMain} pins it):
 * M1, a multi-lock of 3 names taken and released by one thread (latency, and the commands each
 * library sends per multi-lock, counted by MONITOR in a window of its own); M2, 2 clients × 4
 * threads each taking 3 of 6 names in a random order (multi-locks per second, p99). lockkit's
 * {@code acquireAll} against Redisson's {@code RedissonMultiLock} ({@code getMultiLock(...).lock()}),
 * both with default settings and watchdog leases. Writes {@code primitives.md} to {@code --out}.
 */
public final class PrimitivesBenchmarkMain {

    static final String COMMAND = "mvn -B -q install -DskipTests -pl lock-bom,lock-benchmarks -am && "
            + "mvn -B -q -pl lock-benchmarks exec:exec -Dbench.main=io.lockkit.benchmarks.PrimitivesBenchmarkMain";
    private static final int RUNS = 3;
    private static final int NAMES = 3;
    private static final int POOL = 6;

    /** A library's multi-lock: take all names (waiting as long as it takes), release them. */
    interface MultiClient extends AutoCloseable {
        Runnable acquireAll(List<String> names);

        @Override
        void close();
    }

    record Figures(double p50Micros, double p99Micros, double perSecond) {}

    private PrimitivesBenchmarkMain() {}

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
            Map<String, List<Figures>> m1 = new TreeMap<>();
            Map<String, List<Figures>> m2 = new TreeMap<>();
            Map<String, List<Figures>> m2Sorted = new TreeMap<>();
            Map<String, Double> commands = new TreeMap<>();
            for (int r = 0; r < RUNS; r++) {
                List<String> order = new ArrayList<>(List.of("lockkit", "Redisson"));
                Collections.rotate(order, r);
                for (String lib : order) {
                    m1.computeIfAbsent(lib, k -> new ArrayList<>()).add(uncontended(lib, server.uri()));
                    m2.computeIfAbsent(lib, k -> new ArrayList<>()).add(contended(lib, server.uri(), false));
                    m2Sorted.computeIfAbsent(lib, k -> new ArrayList<>()).add(contended(lib, server.uri(), true));
                    BenchmarkMain.log(
                            "run %d %s: M1 %s, M2 %s, M2 sorted %s",
                            r + 1, lib, last(m1, lib), last(m2, lib), last(m2Sorted, lib));
                }
            }
            for (String lib : List.of("lockkit", "Redisson")) {
                commands.put(lib, commandsPerMultiLock(lib, redis));
            }
            Files.createDirectories(out);
            String report = report(started, server, pinning, cores, m1, m2, m2Sorted, commands);
            Files.writeString(out.resolve("primitives.md"), report);
            System.out.println(report);
        }
        System.exit(0); // Redisson's threads must not keep the JVM up
    }

    private static Figures last(Map<String, List<Figures>> m, String lib) {
        List<Figures> l = m.get(lib);
        return l.get(l.size() - 1);
    }

    static MultiClient open(String lib, String uri, String connectionName) {
        if (lib.equals("lockkit")) {
            DistributedLockFactory locks = DistributedLockFactory.create(LockkitClient.provider(uri, connectionName));
            return new MultiClient() {
                @Override
                public Runnable acquireAll(List<String> names) {
                    try {
                        MultiLockHandle all = locks.acquireAll(names);
                        return all::release;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }

                @Override
                public void close() {
                    locks.close();
                }
            };
        }
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setClientName(connectionName);
        RedissonClient redisson = Redisson.create(config);
        return new MultiClient() {
            @Override
            public Runnable acquireAll(List<String> names) {
                RLock[] locks = names.stream().map(redisson::getLock).toArray(RLock[]::new);
                RLock all = redisson.getMultiLock(locks);
                all.lock();
                return all::unlock;
            }

            @Override
            public void close() {
                redisson.shutdown(0, 5, java.util.concurrent.TimeUnit.SECONDS);
            }
        };
    }

    /** M1: one thread, the same 3 names, 2,000 multi-locks of warm-up, then 10,000 measured. */
    private static Figures uncontended(String lib, String uri) {
        List<String> names = List.of("m1:" + lib + ":a", "m1:" + lib + ":b", "m1:" + lib + ":c");
        try (MultiClient client = open(lib, uri, "bench-m1-" + lib)) {
            for (int i = 0; i < 2_000; i++) {
                client.acquireAll(names).run();
            }
            Stats.Samples samples = new Stats.Samples();
            long start = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                long t = System.nanoTime();
                client.acquireAll(names).run();
                samples.add(System.nanoTime() - t);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Figures(samples.percentile(50) / 1e3, samples.percentile(99) / 1e3, 10_000 / seconds);
        }
    }

    /**
     * M2: 2 clients × 4 threads, each multi-lock 3 of 6 names, in a random order or (sorted) in
     * ascending order as a careful caller would pass them; 1 s warm-up, 5 s measured.
     */
    private static Figures contended(String lib, String uri, boolean sorted) throws InterruptedException {
        List<String> pool = new ArrayList<>();
        for (int i = 0; i < POOL; i++) {
            pool.add("m2:" + lib + ":" + i);
        }
        List<MultiClient> clients = List.of(open(lib, uri, "bench-m2-" + lib), open(lib, uri, "bench-m2-" + lib));
        try {
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            List<Stats.Samples> all = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (MultiClient client : clients) {
                for (int t = 0; t < 4; t++) {
                    Stats.Samples mine = new Stats.Samples();
                    all.add(mine);
                    Thread worker =
                            new Thread(() -> worker(client, pool, sorted, go, measuring, stop, mine), "m2-worker");
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
            clients.forEach(MultiClient::close);
        }
    }

    private static void worker(
            MultiClient client,
            List<String> pool,
            boolean sorted,
            CountDownLatch go,
            AtomicBoolean measuring,
            AtomicBoolean stop,
            Stats.Samples samples) {
        try {
            go.await();
        } catch (InterruptedException e) {
            return;
        }
        List<String> names = new ArrayList<>(pool);
        while (!stop.get()) {
            Collections.shuffle(names, ThreadLocalRandom.current());
            List<String> three = new ArrayList<>(names.subList(0, NAMES));
            if (sorted) {
                Collections.sort(three);
            }
            long t = System.nanoTime();
            Runnable release = client.acquireAll(three);
            release.run();
            if (measuring.get()) {
                samples.add(System.nanoTime() - t);
            }
        }
    }

    /** The commands a library sends for one uncontended multi-lock of 3 names (MONITOR, 500 of them). */
    private static double commandsPerMultiLock(String lib, RedisAdmin redis) {
        List<String> names = List.of("mc:" + lib + ":a", "mc:" + lib + ":b", "mc:" + lib + ":c");
        try (MultiClient client = open(lib, redis.uri(), "bench-mc-" + lib)) {
            client.acquireAll(names).run(); // connections and subscriptions made before the window
            try (MonitorCounter monitor =
                    new MonitorCounter(redis.server().host(), redis.server().port())) {
                monitor.begin(redis);
                for (int i = 0; i < 500; i++) {
                    client.acquireAll(names).run();
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
            Map<String, List<Figures>> m1,
            Map<String, List<Figures>> m2,
            Map<String, List<Figures>> m2Sorted,
            Map<String, Double> commands) {
        StringBuilder s = new StringBuilder();
        s.append("# lockkit primitives beside Redisson\n\n");
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
        s.append("## Multi-lock of 3 names (`acquireAll` vs `RedissonMultiLock`)\n\n");
        s.append("| figure | lockkit | Redisson 4.7.0 | lockkit ÷ Redisson |\n|---|---:|---:|---:|\n");
        row(s, "M1 acquire+release p50, 1 thread (µs)", m1, Figures::p50Micros);
        row(s, "M1 acquire+release p99, 1 thread (µs)", m1, Figures::p99Micros);
        row(s, "M1 multi-locks/s, 1 thread", m1, Figures::perSecond);
        row(s, "M2 multi-locks/s, 2 clients × 4 threads, 3 of 6 names in a random order", m2, Figures::perSecond);
        row(s, "M2 acquire+release p99 (µs)", m2, Figures::p99Micros);
        row(s, "M2 multi-locks/s, the names passed in ascending order", m2Sorted, Figures::perSecond);
        row(s, "M2 acquire+release p99, ascending order (µs)", m2Sorted, Figures::p99Micros);
        s.append(String.format(
                Locale.ROOT,
                "| client commands per uncontended multi-lock (MONITOR) | %.2f | %.2f | %.2f× |%n",
                commands.get("lockkit"),
                commands.get("Redisson"),
                commands.get("lockkit") / commands.get("Redisson")));
        return s.toString();
    }

    private static void row(
            StringBuilder s,
            String label,
            Map<String, List<Figures>> m,
            java.util.function.ToDoubleFunction<Figures> f) {
        double lockkit = median(m.get("lockkit"), f);
        double redisson = median(m.get("Redisson"), f);
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
