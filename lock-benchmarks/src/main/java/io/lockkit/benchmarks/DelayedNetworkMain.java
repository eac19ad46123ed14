package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchClient.BenchLock;
import io.lockkit.benchmarks.Stats.Samples;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * P1, P3 and P7 over a slower network: every client (the floor, lockkit, Redisson) reaches Redis
 * through a {@link DelayProxy} that adds a round-trip delay (1 and 5 ms, and 0 ms: straight to
 * Redis without the proxy, unless {@code --delays=} says otherwise), where a saved round trip or a
 * hand-off without one shows. P1: one thread's lock
 * + unlock of a free name, p50 and p99. P3: 4 clients × 8 threads on one name, acquisitions per
 * second and hand-off p50. P7: 4 clients × 1 thread on one name, each asking again only after
 * another took the lock, so that every release hands the lock to another client (process), each
 * holding it for two added round trips (at least 1 ms; see {@link #p7Hold}): the p50 from the
 * release call to the next holder's return. The libraries take turns within each delay; {@code --rounds=} rounds (2 unless given);
 * the tables give the median of the rounds. Writes {@code delayed-network.md} to {@code --out}
 * ({@code results/raw} unless given) and prints it.
 */
public final class DelayedNetworkMain {

    static final String COMMAND = "mvn -B -q install -DskipTests -pl lock-bom,lock-benchmarks -am && "
            + "mvn -B -q -pl lock-benchmarks exec:exec -Dbench.main=io.lockkit.benchmarks.DelayedNetworkMain";

    private static final List<Library> LIBRARIES = List.of(Library.FLOOR, Library.LOCKKIT, Library.REDISSON);

    /** One library's figures at one delay in one round. */
    private record Figures(
            double p1p50, double p1p99, double p3PerSecond, double p3HandOffP50, double p7OtherP50, double p7Share) {}

    private DelayedNetworkMain() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of("results/raw");
        List<Integer> delays = List.of(0, 1, 5);
        int rounds = 2;
        Duration measure = Duration.ofSeconds(5);
        for (String a : args) {
            if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            } else if (a.startsWith("--delays=")) {
                delays = java.util.Arrays.stream(
                                a.substring("--delays=".length()).split(","))
                        .map(Integer::valueOf)
                        .toList();
            } else if (a.startsWith("--rounds=")) {
                rounds = Integer.parseInt(a.substring("--rounds=".length()));
            } else if (a.startsWith("--measure=")) {
                measure = Duration.ofSeconds(Long.parseLong(a.substring("--measure=".length())));
            }
        }
        RedisFixture fixture =
                RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();
        Map<Integer, Map<Library, List<Figures>>> results = new LinkedHashMap<>();
        String load;
        try (RedisServer server = fixture.start()) {
            RedisAdmin redis = new RedisAdmin(server);
            String before = loadAverage();
            for (int round = 1; round <= rounds; round++) {
                for (int delay : delays) {
                    // 0 ms: straight to Redis, on loopback, without the proxy's own hops
                    try (DelayProxy proxy = delay == 0
                            ? null
                            : new DelayProxy(server.host(), server.port(), Duration.ofMillis(delay))) {
                        String uri = proxy == null ? server.uri() : proxy.uri();
                        for (int i = 0; i < LIBRARIES.size(); i++) {
                            Library lib = LIBRARIES.get((i + round - 1) % LIBRARIES.size()); // turns rotate per round
                            Figures f = measure(redis, uri, lib, delay, round, measure);
                            results.computeIfAbsent(delay, d -> new EnumMap<>(Library.class))
                                    .computeIfAbsent(lib, l -> new ArrayList<>())
                                    .add(f);
                        }
                    }
                }
            }
            load = before + " before, " + loadAverage() + " after";
            String md = report(server.version(), results, rounds, measure, load);
            Files.createDirectories(out);
            Files.writeString(out.resolve("delayed-network.md"), md);
            System.out.print(md);
        }
    }

    /** P7's hold: longer than two round trips, and at least 1 ms (see Contention's run). */
    static Duration p7Hold(int delayMillis) {
        return Duration.ofMillis(Math.max(1, 2L * delayMillis));
    }

    private static Figures measure(RedisAdmin redis, String uri, Library lib, int delay, int round, Duration measure)
            throws InterruptedException {
        String tag = "d" + delay + "r" + round;
        double[] p1;
        try (BenchClient client =
                BenchClient.open(lib, uri, "bench-delay-" + lib.name().toLowerCase())) {
            p1 = p1(client.lock("p1-" + tag), measure);
        }
        Contention.Result p3;
        Contention.Result p7;
        Duration warmup = Duration.ofSeconds(2);
        try (Contention c = new Contention(lib, redis, uri, 4, tag)) {
            p3 = c.run("p3-" + tag, 4, 8, warmup, measure, false);
            p7 = c.run("p7-" + tag, 4, 1, warmup, measure, false, true, p7Hold(delay));
        }
        Figures f = new Figures(
                p1[0],
                p1[1],
                p3.acquisitionsPerSecond(),
                p3.handoffP50Micros(),
                p7.handOffs().otherClientP50Micros(),
                p7.handOffs().otherClientShare());
        BenchmarkMain.log(
                "+%d ms round %d %-8s: P1 p50 %.0f µs p99 %.0f µs; P3 %.0f acq/s, hand-off p50 %.0f µs; P7 other-client"
                        + " hand-off p50 %.0f µs (%.0f%% of hand-offs)%s",
                delay,
                round,
                lib.label(),
                f.p1p50,
                f.p1p99,
                f.p3PerSecond,
                f.p3HandOffP50,
                f.p7OtherP50,
                100 * f.p7Share,
                p3.lostUpdates() + p7.lostUpdates() + p3.errors() + p7.errors() > 0
                        ? " LOST UPDATES OR ERRORS: " + p3.firstError() + " " + p7.firstError()
                        : "");
        return f;
    }

    /** One thread's lock + unlock of a free name for {@code measure} after a quarter of it as warm-up: p50, p99 (µs). */
    private static double[] p1(BenchLock lock, Duration measure) {
        long warmEnd = System.nanoTime() + measure.toNanos() / 4;
        while (System.nanoTime() < warmEnd) {
            lock.lock();
            lock.unlock();
        }
        Samples samples = new Samples();
        long end = System.nanoTime() + measure.toNanos();
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            lock.lock();
            lock.unlock();
            samples.add(System.nanoTime() - t0);
        }
        return new double[] {samples.percentile(50) / 1e3, samples.percentile(99) / 1e3};
    }

    private static String report(
            String version,
            Map<Integer, Map<Library, List<Figures>>> results,
            int rounds,
            Duration measure,
            String load) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "Redis %s, JDK %s, unpinned; %d rounds, %d s measured per scenario; load average %s.%nCommand: `%s`%n%n",
                version,
                Runtime.version(),
                rounds,
                measure.toSeconds(),
                load,
                COMMAND));
        md.append(
                        "| added round trip | library | P1 p50 µs | P1 p99 µs | P1 × floor | P3 acq/s | P3 × floor | P3 hand-off p50 µs"
                                + " | P7 other-client hand-off p50 µs | P7 × floor | P7 × Redisson |\n")
                .append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (var byDelay : results.entrySet()) {
            Map<Library, Figures> median = new EnumMap<>(Library.class);
            byDelay.getValue().forEach((lib, rs) -> median.put(lib, median(rs)));
            Figures floor = median.get(Library.FLOOR);
            Figures redisson = median.get(Library.REDISSON);
            for (Library lib : LIBRARIES) {
                Figures f = median.get(lib);
                if (f == null) {
                    continue;
                }
                md.append(String.format(
                        Locale.ROOT,
                        "| %d ms | %s | %,.0f | %,.0f | %.2f× | %,.0f | %.2f× | %,.0f | %,.0f | %.2f× | %.2f× |%n",
                        byDelay.getKey(),
                        lib.label(),
                        f.p1p50,
                        f.p1p99,
                        f.p1p50 / floor.p1p50,
                        f.p3PerSecond,
                        f.p3PerSecond / floor.p3PerSecond,
                        f.p3HandOffP50,
                        f.p7OtherP50,
                        f.p7OtherP50 / floor.p7OtherP50,
                        f.p7OtherP50 / redisson.p7OtherP50));
            }
        }
        return md.toString();
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    private static Figures median(List<Figures> rs) {
        return new Figures(
                Stats.median(rs.stream().map(Figures::p1p50).toList()),
                Stats.median(rs.stream().map(Figures::p1p99).toList()),
                Stats.median(rs.stream().map(Figures::p3PerSecond).toList()),
                Stats.median(rs.stream().map(Figures::p3HandOffP50).toList()),
                Stats.median(rs.stream().map(Figures::p7OtherP50).toList()),
                Stats.median(rs.stream().map(Figures::p7Share).toList()));
    }
}
