package io.lockkit.benchmarks;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * P9, allocation on the client: bytes allocated per uncontended lock + unlock over Redis by the
 * raw floor ({@link FloorClient}), lockkit and Redisson 4.7.0, summed over every thread of the JVM
 * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long[])}: Redisson's work runs on
 * its Netty threads), and the caller's thread alone; then lockkit's bytes per watchdog tick per
 * hold with 1, 100 and 1,000 holds (a 3 s watchdog lease renewed every 500 ms, 20 ticks, less what
 * the same JVM allocates over the same time with no hold). Bytes do not depend on the machine's
 * load, so nothing is pinned. Writes {@code memory-p9.md} to {@code --out} ({@code results/raw}
 * unless given) and prints it.
 */
public final class RedisAllocationMain {

    static final String COMMAND = "mvn -B -q install -DskipTests -pl lock-bom,lock-benchmarks -am && "
            + "mvn -B -q -pl lock-benchmarks exec:exec -Dbench.main=io.lockkit.benchmarks.RedisAllocationMain";
    private static final int PAIRS = 20_000;
    private static final int ROUNDS = 5;
    private static final int TICKS = 20;
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private RedisAllocationMain() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of("results/raw");
        List<Library> libraries = List.of(Library.FLOOR, Library.LOCKKIT, Library.REDISSON);
        boolean ticks = true;
        for (String a : args) {
            if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            } else if (a.equals("--ticks")) { // the watchdog ticks only, e.g. under JFR
                libraries = List.of();
            } else if (a.startsWith("--only=")) { // one library's pairs, e.g. under JFR
                libraries = List.of(Library.valueOf(a.substring("--only=".length())));
                ticks = false;
            }
        }
        RedisFixture fixture =
                RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();
        StringBuilder md = new StringBuilder();
        try (RedisServer server = fixture.start()) {
            md.append(String.format(
                    Locale.ROOT, "Redis %s, JDK %s; command: `%s`%n%n", server.version(), Runtime.version(), COMMAND));
            md.append(
                            "| library | all threads, B per lock + unlock (median of 5 rounds of 20,000; each round) | caller's thread only | ÷ floor (all threads) |\n")
                    .append("|---|---:|---:|---:|\n");
            double floor = 0;
            for (Library lib : libraries) {
                double[][] rounds = pairs(lib, server.uri());
                double all = median(rounds[0]);
                if (lib == Library.FLOOR || floor == 0) {
                    floor = all;
                }
                String row = String.format(
                        Locale.ROOT,
                        "| %s | %,.0f (%s) | %,.0f | %.2f× |%n",
                        lib,
                        all,
                        join(rounds[0]),
                        median(rounds[1]),
                        all / floor);
                System.out.print(row);
                md.append(row);
            }
            if (ticks) {
                md.append('\n').append(ticks(server.uri()));
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("memory-p9.md"), md.toString());
        System.out.println(md);
    }

    /** {all threads per pair of each round, caller's thread per pair of each round}. */
    private static double[][] pairs(Library lib, String uri) {
        double[][] figures = new double[2][ROUNDS];
        try (BenchClient client = BenchClient.open(lib, uri, "p9-" + lib.name().toLowerCase(Locale.ROOT))) {
            BenchClient.BenchLock lock = client.lock("p9:" + lib.name().toLowerCase(Locale.ROOT));
            long me = Thread.currentThread().getId();
            for (int i = 0; i < 4 * PAIRS; i++) { // warm-up: connections, scripts, JIT
                lock.lock();
                lock.unlock();
            }
            for (int r = 0; r < ROUNDS; r++) {
                long all0 = allThreads();
                long me0 = MX.getThreadAllocatedBytes(me);
                for (int i = 0; i < PAIRS; i++) {
                    lock.lock();
                    lock.unlock();
                }
                figures[1][r] = (MX.getThreadAllocatedBytes(me) - me0) / (double) PAIRS;
                figures[0][r] = (allThreads() - all0) / (double) PAIRS;
            }
        }
        return figures;
    }

    /** lockkit's bytes per watchdog tick per hold, every thread of the JVM, less an idle baseline. */
    private static String ticks(String uri) throws InterruptedException {
        StringBuilder sb = new StringBuilder(
                "| holds | ticks | renewals | all threads, B over the ticks | idle baseline, B over the same time | B per tick | B per tick per hold | B per renewal |\n"
                        + "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        CountingProvider counting = new CountingProvider(LockkitClient.provider(uri, "p9-watchdog"), () -> 0);
        LockOptions options = LockOptions.builder()
                .watchdogLease(Duration.ofSeconds(3))
                .renewalInterval(Duration.ofMillis(500))
                .build();
        try (DistributedLockFactory f = DistributedLockFactory.create(counting)) {
            for (int holds : new int[] {1, 100, 1000}) {
                List<LockHandle> held = new ArrayList<>();
                for (int i = 0; i < holds; i++) {
                    held.add(f.acquire("p9:tick:" + i, options));
                }
                awaitTicks(counting, 4); // the first renewals: scheduling, JIT
                counting.reset();
                long t0 = System.nanoTime();
                long a0 = allThreads();
                awaitTicks(counting, TICKS);
                long bytes = allThreads() - a0;
                long nanos = System.nanoTime() - t0;
                long ticks = counting.renewCalls();
                long renewals = counting.renewals();
                held.forEach(LockHandle::release);
                long idle = idle(nanos);
                double perTick = (bytes - idle) / (double) ticks;
                String row = String.format(
                        Locale.ROOT,
                        "| %,d | %d | %,d | %,d | %,d | %,.0f | %,.1f | %,.0f |%n",
                        holds,
                        ticks,
                        renewals,
                        bytes,
                        idle,
                        perTick,
                        perTick / holds,
                        (bytes - idle) / (double) renewals);
                System.out.print(row);
                sb.append(row);
            }
        }
        return sb.toString();
    }

    private static void awaitTicks(CountingProvider counting, int ticks) throws InterruptedException {
        long start = counting.renewCalls();
        while (counting.renewCalls() - start < ticks) {
            Thread.sleep(10);
        }
    }

    /** What the JVM allocates over {@code nanos} with no hold (the polling loop of awaitTicks included). */
    private static long idle(long nanos) throws InterruptedException {
        long a0 = allThreads();
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.sleep(10);
        }
        return allThreads() - a0;
    }

    /** Bytes allocated so far by every live thread (a thread that ended takes its count with it). */
    static long allThreads() {
        long[] ids = MX.getAllThreadIds();
        return Arrays.stream(MX.getThreadAllocatedBytes(ids)).filter(b -> b > 0).sum();
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }

    private static String join(double[] values) {
        StringBuilder sb = new StringBuilder();
        for (double v : values) {
            sb.append(sb.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,.0f", v));
        }
        return sb.toString();
    }
}
